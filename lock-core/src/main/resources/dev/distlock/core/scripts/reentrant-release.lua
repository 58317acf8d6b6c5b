-- Releases one hold of a reentrant lock, at most once per request id.
-- KEYS[1] lock key
-- KEYS[2] unlock channel: every waiter's, Redisson's too
-- KEYS[3] unlock latch: of this request
-- KEYS[4] waiting clients: set of Distlock clients with a parked waiter
-- ARGV[1] unlock message
-- ARGV[2] lease in ms: kept while holds remain
-- ARGV[3] owner field
-- ARGV[4] latch lifetime in ms: how long the latch remembers the outcome
-- ARGV[5] wake-up channel prefix: of the per-client wake-up channels ('' to always broadcast)
-- ARGV[6] publish command: of the broadcast, PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
-- A retry of the same request (its reply was lost) replays the first outcome (the unlock latch).
-- On release, one listed Distlock client is woken on its own channel, so a release does not send
-- every waiting client at the lock; only when none is listed (or none listens any more) does the
-- release broadcast on the shared channel, which is also what wakes Redisson's waiters.
--! include announce
--! include unlock-latch
--! include wake-one-client
local replayed, previous = latch_replay(KEYS[3])
if replayed then
    return previous
end
local outcome
local count = redis.call('hget', KEYS[1], ARGV[3])
if count and tonumber(count) > 1 then
    redis.call('hincrby', KEYS[1], ARGV[3], -1)
    redis.call('pexpire', KEYS[1], ARGV[2])
    outcome = 0
elseif count then
    redis.call('del', KEYS[1])
    wake_one_client(KEYS[4], ARGV[5], KEYS[2], ARGV[1], ARGV[6])
    outcome = 1
end
return latch_record(KEYS[3], outcome, ARGV[4])
