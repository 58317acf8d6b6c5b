-- Releases one write hold. On the last one the lock is deleted, or, if the writer still holds read
-- locks (downgrade), turned into a read lock whose TTL is that of the remaining read holds. Either way
-- every waiter is woken: readers can now enter.
-- KEYS[1] lock key: its read-write channel, and outside a cluster the unlock latch of this request,
--         are named from it
-- KEYS[2] unlock latch: of this request, redisson_unlock_latch:{key}:<client id>:<request number>,
--         in a cluster, so that a live slot migration that moved the hash without it makes Redis
--         refuse the call (TRYAGAIN) instead of a retried request releasing a second hold where
--         its latch is absent; '' elsewhere (the script names it from the lock key)
-- KEYS[3] grant record: of the writer, distlock_lock_grant:{key}:<writer field>, in a cluster, so
--         that a lost grant does not look like none during a live slot migration; '' elsewhere (the
--         script names it from the lock key)
-- KEYS[4...] read hold timeouts: the timeout key of every hold of every reader, as the caller last
--         saw the lock (see the rw-holds fragment)
-- ARGV[1] lease in ms: kept while write holds remain (negative for an unlock: keep at least that
--         much; positive for the give-back of a known grant: set it; owner-lease fragment)
-- ARGV[2] writer field
-- ARGV[3] request number: this client's count of release requests, which names the latch
-- ARGV[4] latch lifetime in ms: how long the latch remembers the outcome (a retry of the request replays it)
-- ARGV[5] publish flags: 's' to announce with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[6] lost attempts: '' for an unlock; for the clean-up after acquire attempts whose replies
--         were lost, their ids separated by spaces: then one write hold is released only when the
--         writer's grant record names one of them, so a hold granted to a later attempt is kept
-- Returns nil when the owner holds no write lock, 0 when write holds remain, 1 when it holds none.
-- Returns -4, with nothing changed and no outcome recorded, when the lock has read holds whose
-- timeout keys were not declared.
--! include layout
--! include announce
--! include unlock-latch
--! include rw-holds
--! include grant-record
--! include owner-lease
local latch = KEYS[2] ~= '' and KEYS[2] or unlock_latch(KEYS[1], ARGV[2], ARGV[3])
local record = KEYS[3] ~= '' and KEYS[3] or grant_record(KEYS[1], ARGV[2])
local replayed, previous = latch_replay(latch)
if replayed then
    return previous
end
if not readers_declared(KEYS[1], hash_tagged(KEYS[1]), declared_from(4)) then
    return UNDECLARED
end
local function release()
    local key = KEYS[1]
    local base = hash_tagged(key)

    local writer = ARGV[2]
    if redis.call('hget', key, 'mode') ~= 'write' or redis.call('hexists', key, writer) == 0 then
        return nil
    end
    if ARGV[6] ~= '' and not take_lost_grant(record, ARGV[6]) then
        -- The writer's hold is not one the lost attempts took: keep it.
        return nil
    end
    if redis.call('hincrby', key, writer, -1) > 0 then
        keep_lease(key, ARGV[1], sweep(key, base))
        return 0
    end
    redis.call('hdel', key, writer)
    redis.call('del', record)
    local longest = sweep(key, base)
    if redis.call('hlen', key) <= 1 then
        redis.call('del', key)
    else
        redis.call('hset', key, 'mode', 'read')
        if longest > 0 then
            redis.call('pexpire', key, longest)
        end
    end
    announce(publisher(ARGV[5]), companion('redisson_rwlock', KEYS[1]), '1')
    return 1
end

return latch_record(latch, release(), ARGV[4])
