-- Removes a waiter that gave up from a fair lock's queue at once. Later waiters' deadlines move up
-- by one waiter timeout where they were chained behind it (Redisson waiters), never below a live
-- waiter's own lease; if the lock is free, the new head is told.
-- KEYS[1] lock key
-- KEYS[2] queue
-- KEYS[3] deadlines
-- KEYS[4] waiter channel prefix
-- ARGV[1] wake-up message
-- ARGV[2] owner field
-- ARGV[3] waiter timeout in ms
-- ARGV[4] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when the owner was queued, else 0.
--! include announce
--! include server-clock
local now = server_now()
local owner = ARGV[2]
local step = tonumber(ARGV[3])

local found = false
for _, waiter in ipairs(redis.call('lrange', KEYS[2], 0, -1)) do
    if found then
        local deadline = tonumber(redis.call('zscore', KEYS[3], waiter))
        if deadline and deadline > now + step then
            redis.call('zadd', KEYS[3], math.max(deadline - step, now + step), waiter)
        end
    elseif waiter == owner then
        found = true
    end
end
redis.call('lrem', KEYS[2], 0, owner)
redis.call('zrem', KEYS[3], owner)
for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
    redis.call('zrem', KEYS[3], dead)
    redis.call('lrem', KEYS[2], 0, dead)
end
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head then
        announce(ARGV[4], KEYS[4] .. ':' .. head, ARGV[1])
    end
end
if found then
    return 1
end
return 0
