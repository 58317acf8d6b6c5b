-- Takes (or re-enters) a fair lock, or queues the caller. Redisson-compatible layout: hash owner ->
-- hold count at the lock key, list of waiting owners, zset owner -> deadline (epoch ms, server clock).
-- A queued waiter's deadline is a liveness lease: every attempt of a live waiter moves it to
-- now + waiter timeout, so a waiter that died is purged within one waiter timeout wherever it sits.
-- KEYS[1] lock key: its queue (redisson_lock_queue:{key}), its zset of queued owner to deadline
--         (redisson_lock_timeout:{key}) and its waiters' channels (redisson_lock__channel:{key}:<owner
--         field>) are named from it outside a cluster
-- KEYS[2] queue: redisson_lock_queue:{key}; declared in a cluster only, so that a live slot
--         migration that has not moved the queue with the hash makes Redis refuse the call
--         (TRYAGAIN) instead of a caller finding no queue and skipping the waiters in it
-- KEYS[3] deadlines: redisson_lock_timeout:{key}; declared in a cluster only, as the queue
-- KEYS[4] grant record: of the owner, distlock_lock_grant:{key}:<owner field>; declared in a
--         cluster when an attempt id is given (elsewhere the script names it from the lock key), so
--         that a live slot migration that moved the hash without it makes Redis refuse the call
--         (TRYAGAIN) instead of the record being written on a node where another one still lives
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- ARGV[3] remaining wait in ms: the caller's (0: do not queue)
-- ARGV[4] waiter timeout in ms
-- ARGV[5] longest park in ms
-- ARGV[6] publish flags: 's' to announce with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[7] attempt id: recorded as the owner's grant when this attempt takes the lock afresh or
--         adopts a lost grant, so that the clean-up after a lost reply (fair-release's lost
--         attempts) undoes only what that attempt took ('' for a re-entry of a hold the client
--         knows, which is never cleaned up)
-- ARGV[8] mode: '0' fresh: the owner holds nothing the client knows and none of its
--         attempts is in flight or lost, so a hold of the owner found here is an orphan (its
--         release was lost in a failover, or failed) that must expire with its lease, not be
--         re-entered and renewed by every later acquisition; '1' the owner may hold the lock (a
--         re-entry); '2' adopt: the owner holds nothing the client knows but an earlier attempt's
--         reply was lost, so a hold of the owner found here is that attempt's, taken over rather
--         than counted again
-- Returns nil when acquired, else how long to park before trying again, in ms.
--! include layout
--! include announce
--! include server-clock
--! include grant-record
--! include owner-lease
local queue = KEYS[2] or companion('redisson_lock_queue', KEYS[1])
local deadlines = KEYS[3] or companion('redisson_lock_timeout', KEYS[1])
local now = server_now()
local owner = ARGV[2]
local step = tonumber(ARGV[4])

-- Purge every dead waiter, not only the head.
local purged = false
for _, dead in ipairs(redis.call('zrangebyscore', deadlines, '-inf', now)) do
    redis.call('zrem', deadlines, dead)
    redis.call('lrem', queue, 0, dead)
    purged = true
end
local head = redis.call('lindex', queue, 0)
while head and head ~= owner and redis.call('zscore', deadlines, head) == false do
    redis.call('lpop', queue)
    purged = true
    head = redis.call('lindex', queue, 0)
end

local function record()
    if ARGV[7] ~= '' then
        record_grant(KEYS[4] or grant_record(KEYS[1], owner), ARGV[7], ARGV[1])
    end
end

if ARGV[8] ~= '0' and redis.call('hexists', KEYS[1], owner) == 1 then
    if ARGV[8] == '2' then
        -- Adopted: the hold an earlier attempt of this owner took, whose reply was lost.
        record()
    else
        redis.call('hincrby', KEYS[1], owner, 1)
    end
    extend_lease(KEYS[1], ARGV[1])
    return nil
end

local free = redis.call('exists', KEYS[1]) == 0
if free and (head == false or head == owner) then
    if head == owner then
        redis.call('lpop', queue)
        redis.call('zrem', deadlines, owner)
        -- Redisson chains its waiters' deadlines one waiter timeout apart; move those up by one
        -- step, but never below a live waiter's own lease.
        for _, waiter in ipairs(redis.call('lrange', queue, 0, -1)) do
            local deadline = tonumber(redis.call('zscore', deadlines, waiter))
            if deadline and deadline > now + step then
                redis.call('zadd', deadlines, math.max(deadline - step, now + step), waiter)
            end
        end
    end
    redis.call('hset', KEYS[1], owner, 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    record()
    return nil
end

if purged and free and head then
    announce(publisher(ARGV[6]), companion('redisson_lock__channel', KEYS[1]) .. ':' .. head, '0')
end

if tonumber(ARGV[3]) == 0 then
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        return ttl
    end
    return 1
end

if redis.call('zscore', deadlines, owner) == false then
    redis.call('rpush', queue, owner)
end
redis.call('zadd', deadlines, now + step, owner)
-- Keys of a queue whose waiters all died disappear by themselves once every deadline passed.
local last = redis.call('zrange', deadlines, -1, -1, 'withscores')
local keep = tonumber(last[2]) - now + step
redis.call('pexpire', queue, keep)
redis.call('pexpire', deadlines, keep)

head = redis.call('lindex', queue, 0)
local park = tonumber(ARGV[5])
-- Wake up when the earliest deadline of another waiter passes, to purge it without delay.
local first = redis.call('zrange', deadlines, 0, 0, 'withscores')
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
