-- Releases one hold of a reentrant lock, at most once per request (the unlock latch), and wakes a
-- waiter when the lock is free: the body of reentrant-release, shared with multi-release.
-- key: lock key; lease: ms to keep while holds remain; field: owner field; request: the request
-- number that names the latch; latch_ttl: how long the latch remembers the outcome; flags: 't' to
-- wake one listed client, 's' for SPUBLISH; lost: '' or the ids of lost acquire attempts (only a
-- hold one of them was granted is released); latch, record: the unlock latch and the owner's grant
-- record as declared in KEYS (in a cluster), or nil to name them from the lock key.
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
-- Needs the layout, announce, unlock-latch, wake-one-client, grant-record and owner-lease fragments
-- before it.
local function unlock_hold(key, lease, field, request, latch_ttl, flags, lost, latch, record)
    latch = latch or unlock_latch(key, field, request)
    record = record or grant_record(key, field)
    local replayed, previous = latch_replay(latch)
    if replayed then
        return previous
    end
    local outcome
    local count = redis.call('hget', key, field)
    if lost ~= '' and not take_lost_grant(record, lost) then
        count = nil
    end
    if count and tonumber(count) > 1 then
        redis.call('hincrby', key, field, -1)
        keep_lease(key, lease, 0)
        outcome = 0
    elseif count then
        redis.call('del', key, record)
        local targeted = string.find(flags, 't', 1, true)
        -- '0' is Redisson's unlock message (UnlockSubscriptions.WAKE_ONE).
        wake_one_client(
            companion('distlock_lock_waiters', key),
            targeted and companion('distlock_lock__wake', key) .. ':' or '',
            companion('redisson_lock__channel', key),
            '0',
            publisher(flags))
        outcome = 1
    end
    return latch_record(latch, outcome, latch_ttl)
end
