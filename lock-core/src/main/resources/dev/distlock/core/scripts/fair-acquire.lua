-- Takes (or re-enters) a fair lock, or queues the caller. Redisson-compatible layout: hash owner ->
-- hold count at the lock key, list of waiting owners, zset owner -> deadline (epoch ms, server clock).
-- A queued waiter's deadline is a liveness lease: every attempt of a live waiter moves it to
-- now + waiter timeout, so a waiter that died is purged within one waiter timeout wherever it sits.
-- KEYS[1] lock key
-- KEYS[2] queue
-- KEYS[3] deadlines
-- KEYS[4] waiter channel prefix
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- ARGV[3] remaining wait in ms: the caller's (0: do not queue)
-- ARGV[4] waiter timeout in ms
-- ARGV[5] longest park in ms
-- ARGV[6] wake-up message
-- ARGV[7] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns nil when acquired, else how long to park before trying again, in ms.
--! include announce
--! include server-clock
local now = server_now()
local owner = ARGV[2]
local step = tonumber(ARGV[4])

-- Purge every dead waiter, not only the head.
local purged = false
for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
    redis.call('zrem', KEYS[3], dead)
    redis.call('lrem', KEYS[2], 0, dead)
    purged = true
end
local head = redis.call('lindex', KEYS[2], 0)
while head and head ~= owner and redis.call('zscore', KEYS[3], head) == false do
    redis.call('lpop', KEYS[2])
    purged = true
    head = redis.call('lindex', KEYS[2], 0)
end

if redis.call('hexists', KEYS[1], owner) == 1 then
    redis.call('hincrby', KEYS[1], owner, 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

local free = redis.call('exists', KEYS[1]) == 0
if free and (head == false or head == owner) then
    if head == owner then
        redis.call('lpop', KEYS[2])
        redis.call('zrem', KEYS[3], owner)
        -- Redisson chains its waiters' deadlines one waiter timeout apart; move those up by one
        -- step, but never below a live waiter's own lease.
        for _, waiter in ipairs(redis.call('lrange', KEYS[2], 0, -1)) do
            local deadline = tonumber(redis.call('zscore', KEYS[3], waiter))
            if deadline and deadline > now + step then
                redis.call('zadd', KEYS[3], math.max(deadline - step, now + step), waiter)
            end
        end
    end
    redis.call('hset', KEYS[1], owner, 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

if purged and free and head then
    announce(ARGV[7], KEYS[4] .. ':' .. head, ARGV[6])
end

if tonumber(ARGV[3]) == 0 then
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        return ttl
    end
    return 1
end

if redis.call('zscore', KEYS[3], owner) == false then
    redis.call('rpush', KEYS[2], owner)
end
redis.call('zadd', KEYS[3], now + step, owner)
-- Keys of a queue whose waiters all died disappear by themselves once every deadline passed.
local last = redis.call('zrange', KEYS[3], -1, -1, 'withscores')
local keep = tonumber(last[2]) - now + step
redis.call('pexpire', KEYS[2], keep)
redis.call('pexpire', KEYS[3], keep)

head = redis.call('lindex', KEYS[2], 0)
local park = tonumber(ARGV[5])
-- Wake up when the earliest deadline of another waiter passes, to purge it without delay.
local first = redis.call('zrange', KEYS[3], 0, 0, 'withscores')
if first[1] and first[1] ~= owner then
    park = math.min(park, math.max(1, tonumber(first[2]) - now + 1))
end
if head == owner then
    local ttl = redis.call('pttl', KEYS[1])
    if ttl >= 0 then
        -- A lease about to end (0 ms left) means "try again now", not "park the full interval".
        park = math.min(park, math.max(ttl, 1))
    end
end
return park
