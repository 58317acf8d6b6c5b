-- Releases one hold of each member of a multi lock that lives on this server (in a cluster, in
-- this slot), each at most once per request id, exactly as reentrant-release does for one lock:
-- a member whose last hold goes wakes that member's waiters.
-- KEYS[i] lock key of member i: its unlock channel, latch and waiting clients are named from it
-- KEYS[n+i] unlock latch of member i: after the n lock keys, in a cluster only, so that a live slot
--         migration that moved a member's hash without it makes Redis refuse the call (TRYAGAIN)
--         instead of a retried request releasing a second hold where its latch is absent
-- KEYS[2n+i] grant record of member i: in a cluster only, as the latches
-- ARGV[1] latch lifetime in ms: how long each latch remembers the outcome
-- ARGV[2] wake flags: 't' to wake one listed client on its own channel (else always broadcast),
--         's' to broadcast with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[3i] lease in ms of member i: kept while holds remain (negative for an unlock: keep at least that much; owner-lease)
-- ARGV[3i+1] owner field of member i
-- ARGV[3i+2] request number of member i: names its latch
-- Returns one value per member: -1 when the owner held nothing, 0 when holds remain, 1 when that
-- member was released, or the error text when that member's release failed (its key holds another
-- type: WRONGTYPE). A retry of the same request (its reply was lost) replays the outcomes.
--! include layout
--! include announce
--! include unlock-latch
--! include wake-one-client
--! include grant-record
--! include owner-lease
--! include reentrant-unlock
local outcomes = {}
-- Three ARGV per member after the two fixed ones.
local count = (#ARGV - 2) / 3
for i = 1, count do
    local base = 3 * i
    -- One member that cannot be released must not abort the script: the members after it would stay
    -- locked, unknown to their owner. A key of another type fails the member's reads, before any of
    -- its writes, so that member is left as it was.
    local ok, outcome = pcall(
        unlock_hold,
        KEYS[i], ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[1], ARGV[2], '', KEYS[count + i], KEYS[2 * count + i])
    if not ok then
        -- Redis 7 raises a redis.call error as a table with an 'err' field, Redis 6 as its text.
        outcomes[i] = type(outcome) == 'table' and tostring(outcome.err) or tostring(outcome)
    else
        outcomes[i] = outcome == nil and -1 or outcome
    end
end
return outcomes
