-- Deadlines use the Redis server's clock, never a client's. A script that reads TIME must
-- replicate its effects rather than itself (already the default from Redis 5).
if redis.replicate_commands then
    redis.replicate_commands()
end

-- Returns the server's time in ms.
local function server_now()
    local time = redis.call('time')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
