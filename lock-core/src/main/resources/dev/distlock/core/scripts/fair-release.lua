-- Releases one hold of a fair lock; on the last one, tells only the queue head, on its own channel.
-- KEYS[1] lock key: its queue, its zset of queued owner to deadline, its waiters' channels and the
--         unlock latch of this request are named from it outside a cluster
-- KEYS[2] queue: redisson_lock_queue:{key}; declared in a cluster only, so that a live slot
--         migration that moved the hash alone makes Redis refuse the call (TRYAGAIN) rather than
--         release without telling the queue head, or a retried request release a second hold
-- KEYS[3] deadlines: redisson_lock_timeout:{key}; declared in a cluster only, as the queue
-- KEYS[4] unlock latch: of this request, redisson_unlock_latch:{key}:<client id>:<request
--         number>; declared in a cluster only, as the queue
-- KEYS[5] grant record: of the owner, distlock_lock_grant:{key}:<owner field>; declared in a
--         cluster only, as the queue (a lost grant must not look like none)
-- ARGV[1] lease in ms: kept while holds remain (negative for an unlock: keep at least that much;
--         positive for the give-back of a known grant: set it; owner-lease fragment)
-- ARGV[2] owner field
-- ARGV[3] request number: this client's count of release requests, which names the latch
-- ARGV[4] latch lifetime in ms: how long the latch remembers the outcome (a retry of the request replays it)
-- ARGV[5] publish flags: 's' to announce with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[6] lost attempts: '' for an unlock; for the clean-up after acquire attempts whose replies
--         were lost, their ids separated by spaces: then one hold is released only when the
--         owner's grant record names one of them, so a hold granted to a later attempt is kept
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
--! include layout
--! include announce
--! include unlock-latch
--! include server-clock
--! include grant-record
--! include owner-lease
local queue = KEYS[2] or companion('redisson_lock_queue', KEYS[1])
local deadlines = KEYS[3] or companion('redisson_lock_timeout', KEYS[1])
local latch = KEYS[4] or unlock_latch(KEYS[1], ARGV[2], ARGV[3])
local record = KEYS[5] or grant_record(KEYS[1], ARGV[2])
local replayed, previous = latch_replay(latch)
if replayed then
    return previous
end
local function release()
    local now = server_now()
    for _, dead in ipairs(redis.call('zrangebyscore', deadlines, '-inf', now)) do
        redis.call('zrem', deadlines, dead)
        redis.call('lrem', queue, 0, dead)
    end

    local function wakeHead()
        local head = redis.call('lindex', queue, 0)
        if head then
            announce(publisher(ARGV[5]), companion('redisson_lock__channel', KEYS[1]) .. ':' .. head, '0')
        end
    end

    if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
        if redis.call('exists', KEYS[1]) == 0 then
            -- The lock expired: the head may be parked until a release it would otherwise never see.
            wakeHead()
        end
        return nil
    end
    if ARGV[6] ~= '' and not take_lost_grant(record, ARGV[6]) then
        -- The owner's hold is not one the lost attempts took: keep it.
        return nil
    end
    if redis.call('hincrby', KEYS[1], ARGV[2], -1) > 0 then
        keep_lease(KEYS[1], ARGV[1], 0)
        return 0
    end
    redis.call('del', KEYS[1], record)
    wakeHead()
    return 1
end

return latch_record(latch, release(), ARGV[4])
