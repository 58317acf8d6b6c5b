-- Takes (or re-enters) a reentrant lock. Redisson-compatible layout: hash owner -> hold count.
-- KEYS[1] lock key
-- ARGV[1] lease in ms, ARGV[2] owner field
-- Returns nil when acquired, else the holder's remaining lease in ms.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
