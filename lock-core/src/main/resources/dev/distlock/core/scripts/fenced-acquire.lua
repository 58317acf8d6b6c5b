-- Takes (or re-enters) a fenced lock: a reentrant lock whose every acquisition draws the next
-- value of the lock's token counter.
-- KEYS[1] lock key: the owner's grant record is named from it outside a cluster
-- KEYS[2] token counter: redisson_lock_token:{key}, declared so that during a slot migration that
--         has not moved it yet Redis refuses to run the script (TRYAGAIN) rather than run it on a
--         node where the counter is absent and would restart at 1
-- KEYS[3] grant record: of the owner, distlock_lock_grant:{key}:<owner field>; declared in a
--         cluster when an attempt id is given (elsewhere the script names it from the lock key), so
--         that a live slot migration that moved the hash without it makes Redis refuse the call
--         (TRYAGAIN) instead of the record being written on a node where another one still lives
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- ARGV[3] attempt id: recorded as the owner's grant when this attempt takes the lock afresh or
--         adopts a lost grant, so that the clean-up after a lost reply (reentrant-release's lost
--         attempts) undoes only what that attempt took ('' for a re-entry of a hold the client
--         knows, which is never cleaned up)
-- ARGV[4] mode: '0' fresh: the owner holds nothing the client knows and none of its
--         attempts is in flight or lost, so a hold of the owner found here is an orphan (its
--         release was lost in a failover, or failed) that must expire with its lease, not be
--         re-entered and renewed by every later acquisition; '1' the owner may hold the lock (a
--         re-entry); '2' adopt: the owner holds nothing the client knows but an earlier attempt's
--         reply was lost, so a hold of the owner found here is that attempt's, taken over rather
--         than counted again
-- Returns {1, token} when acquired, else {0, the holder's remaining lease in ms}.
--! include layout
--! include grant-record
--! include owner-lease
if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    if ARGV[3] ~= '' then
        record_grant(KEYS[3] or grant_record(KEYS[1], ARGV[2]), ARGV[3], ARGV[1])
    end
    return {1, redis.call('incr', KEYS[2])}
end
if ARGV[4] ~= '0' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    if ARGV[4] == '2' then
        if ARGV[3] ~= '' then
            record_grant(KEYS[3] or grant_record(KEYS[1], ARGV[2]), ARGV[3], ARGV[1])
        end
    else
        redis.call('hincrby', KEYS[1], ARGV[2], 1)
    end
    extend_lease(KEYS[1], ARGV[1])
    return {1, redis.call('incr', KEYS[2])}
end
return {0, redis.call('pttl', KEYS[1])}
