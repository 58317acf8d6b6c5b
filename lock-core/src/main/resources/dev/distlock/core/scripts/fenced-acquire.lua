-- Takes (or re-enters) a fenced lock: a reentrant lock whose every acquisition draws the next
-- value of the lock's token counter.
-- KEYS[1] lock key
-- KEYS[2] token counter: redisson_lock_token:{key}, declared so that during a slot migration that
--         has not moved it yet Redis refuses to run the script (TRYAGAIN) rather than run it on a
--         node where the counter is absent and would restart at 1
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- Returns {1, token} when acquired, else {0, the holder's remaining lease in ms}.

--! include owner-lease
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, redis.call('incr', KEYS[2])}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    extend_lease(KEYS[1], ARGV[1])
    return {1, redis.call('incr', KEYS[2])}
end
return {0, redis.call('pttl', KEYS[1])}
