-- Takes (or re-enters) a reentrant lock. Redisson-compatible layout: hash owner -> hold count.
-- KEYS[1] lock key
-- ARGV[1] lease in ms, ARGV[2] owner field,
-- ARGV[3] '1' when the caller may already hold the lock (a re-entry), '0' when it knows it does not
-- Returns nil when acquired, else the holder's remaining lease in ms.
-- A refused attempt costs one PTTL: waiters of a contended lock retry often, so that path is kept lean.
local ttl = redis.call('pttl', KEYS[1])
if ttl == -2 or (ARGV[3] == '1' and redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return ttl
