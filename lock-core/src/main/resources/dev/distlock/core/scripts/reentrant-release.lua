-- Releases one hold of a reentrant lock.
-- KEYS[1] lock key, KEYS[2] unlock channel
-- ARGV[1] unlock message, ARGV[2] lease in ms to keep while holds remain, ARGV[3] owner field
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1
