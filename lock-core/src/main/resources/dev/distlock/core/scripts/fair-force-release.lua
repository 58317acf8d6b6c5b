-- Deletes a fair lock whoever holds it and tells the queue head.
-- KEYS[1] lock key, KEYS[2] queue, KEYS[3] deadlines, KEYS[4] waiter channel prefix
-- ARGV[1] wake-up message
-- Returns 1 when a lock was deleted, else 0.
if redis.replicate_commands then
    redis.replicate_commands()
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
    redis.call('zrem', KEYS[3], dead)
    redis.call('lrem', KEYS[2], 0, dead)
end
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head then
        redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
