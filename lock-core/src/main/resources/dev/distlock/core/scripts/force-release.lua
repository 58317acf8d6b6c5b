-- Deletes a lock whoever holds it and wakes its waiters.
-- KEYS[1] lock key
-- KEYS[2] unlock channel
-- ARGV[1] unlock message
-- ARGV[2] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when a lock was deleted, else 0.
--! include announce
if redis.call('del', KEYS[1]) == 1 then
    announce(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
