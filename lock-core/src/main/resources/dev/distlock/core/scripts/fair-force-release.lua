-- Deletes a fair lock whoever holds it, with its owners' grant records, and tells the queue head.
-- KEYS[1] lock key
-- KEYS[2] queue
-- KEYS[3] deadlines
-- KEYS[4] waiter channel prefix
-- ARGV[1] wake-up message
-- ARGV[2] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when a lock was deleted, else 0.
--! include announce
--! include layout
--! include server-clock
local now = server_now()
for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
    redis.call('zrem', KEYS[3], dead)
    redis.call('lrem', KEYS[2], 0, dead)
end
if redis.call('type', KEYS[1]).ok == 'hash' then
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        redis.call('del', companion('distlock_lock_grant', KEYS[1]) .. ':' .. field)
    end
end
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head then
        announce(ARGV[2], KEYS[4] .. ':' .. head, ARGV[1])
    end
    return 1
end
return 0
