-- Deletes a lock whoever holds it, with its owners' grant records, and wakes its waiters.
-- KEYS[1] lock key
-- KEYS[2] unlock channel
-- ARGV[1] unlock message
-- ARGV[2] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when a lock was deleted, else 0.
--! include announce
--! include layout
if redis.call('type', KEYS[1]).ok == 'hash' then
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        redis.call('del', companion('distlock_lock_grant', KEYS[1]) .. ':' .. field)
    end
end
if redis.call('del', KEYS[1]) == 1 then
    announce(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
