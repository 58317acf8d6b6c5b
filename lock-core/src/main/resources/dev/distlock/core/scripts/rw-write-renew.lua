-- Renews many watchdog write holds in one call, never shortening a TTL that the writer's own read
-- holds need.
-- KEYS[i] lock key of hold i
-- ARGV[1] lease in ms
-- ARGV[i+1] writer field of hold i
-- Returns a list: 1 where the owner still held the write lock (renewed), 0 where it did not, -1 where
-- the key could not be read (e.g. WRONGTYPE): unknown, retried by the client rather than declared
-- lost, and never failing the renewal of the other holds.
local renewed = {}
for i, key in ipairs(KEYS) do
    local mode = redis.pcall('hget', key, 'mode')
    if type(mode) == 'table' then
        renewed[i] = -1
    elseif mode == 'write' and redis.call('hexists', key, ARGV[i + 1]) == 1 then
        redis.call('pexpire', key, math.max(redis.call('pttl', key), tonumber(ARGV[1])))
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
