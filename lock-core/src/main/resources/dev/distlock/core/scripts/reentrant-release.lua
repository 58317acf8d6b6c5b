-- Releases one hold of a reentrant lock, at most once per request id.
-- KEYS[1] lock key: its unlock channel (every waiter's, Redisson's too), the unlock latch of this
--         request and the set of Distlock clients with a parked waiter are named from it
-- ARGV[1] lease in ms: kept while holds remain
-- ARGV[2] owner field
-- ARGV[3] request number: this client's count of release requests, which names the latch
-- ARGV[4] latch lifetime in ms: how long the latch remembers the outcome
-- ARGV[5] wake flags: 't' to wake one listed client on its own channel (else always broadcast),
--         's' to broadcast with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[6] lost attempts: '' for an unlock; for the clean-up after acquire attempts whose replies
--         were lost, their ids separated by spaces: then one hold is released only when the
--         owner's grant record names one of them, so a hold granted to a later attempt is kept
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
-- A retry of the same request (its reply was lost) replays the first outcome (the unlock latch).
-- On release, one listed Distlock client is woken on its own channel, so a release does not send
-- every waiting client at the lock; only when none is listed (or none listens any more) does the
-- release broadcast on the shared channel, which is also what wakes Redisson's waiters.
--! include layout
--! include announce
--! include unlock-latch
--! include wake-one-client
--! include grant-record
local latch = unlock_latch(KEYS[1], ARGV[2], ARGV[3])
local replayed, previous = latch_replay(latch)
if replayed then
    return previous
end
local outcome
local count = redis.call('hget', KEYS[1], ARGV[2])
if ARGV[6] ~= '' and not take_lost_grant(KEYS[1], ARGV[2], ARGV[6]) then
    count = nil
end
if count and tonumber(count) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], -1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    outcome = 0
elseif count then
    redis.call('del', KEYS[1], grant_record(KEYS[1], ARGV[2]))
    local targeted = string.find(ARGV[5], 't', 1, true)
    -- '0' is Redisson's unlock message (UnlockSubscriptions.WAKE_ONE).
    wake_one_client(
        companion('distlock_lock_waiters', KEYS[1]),
        targeted and companion('distlock_lock__wake', KEYS[1]) .. ':' or '',
        companion('redisson_lock__channel', KEYS[1]),
        '0',
        publisher(ARGV[5]))
    outcome = 1
end
return latch_record(latch, outcome, ARGV[4])
