-- Releases one read hold (the one that expires first) of an owner and recomputes the lock's TTL from the holds left.
-- KEYS[1] lock key: its read-write channel, and outside a cluster the unlock latch of this request,
--         are named from it
-- KEYS[2] unlock latch: of this request, redisson_unlock_latch:{key}:<client id>:<request number>,
--         in a cluster, so that a live slot migration that moved the hash without it makes Redis
--         refuse the call (TRYAGAIN) instead of a retried request releasing a second hold where
--         its latch is absent; '' elsewhere (the script names it from the lock key)
-- KEYS[3] grant record: of the reader, distlock_lock_grant:{key}:<reader field>, in a cluster, so
--         that a lost grant does not look like none during a live slot migration; '' elsewhere (the
--         script names it from the lock key)
-- KEYS[4...] read hold timeouts: the timeout key of every hold of the caller, and of every other
--         reader as the caller last saw the lock (see the rw-holds fragment)
-- ARGV[1] reader field
-- ARGV[2] request number: this client's count of release requests, which names the latch
-- ARGV[3] latch lifetime in ms: how long the latch remembers the outcome (a retry of the request replays it)
-- ARGV[4] publish flags: 's' to announce with SPUBLISH (sharded pub/sub) rather than PUBLISH
-- ARGV[5] tidy: '1' to answer -4 unless every reader's holds are declared, '' to release anyway
-- ARGV[6] which hold: 'first' for an unlock, which ends the hold that expires first (it does not say
--         which one it ends); 'newest' for the give-back of the newest grant (a cancelled or lost one)
-- ARGV[7] lost attempts: '' for an unlock; for the clean-up after acquire attempts whose replies
--         were lost, their ids separated by spaces: then the newest hold is released only when the
--         reader's grant record names one of them, so a hold granted to a later attempt is kept
-- Returns nil when the owner holds no read lock, 0 when it still holds some, 1 when it holds none.
-- Returns -4, with nothing changed and no outcome recorded, when a hold of the caller's was not
-- declared, or (tidy) one of another reader. Released untidily, undeclared holds of other readers are
-- left alone: the lock's TTL is not shortened and no dead reader is dropped (a later call does that).
--! include layout
--! include announce
--! include unlock-latch
--! include rw-holds
--! include grant-record
local latch = KEYS[2] ~= '' and KEYS[2] or unlock_latch(KEYS[1], ARGV[1], ARGV[2])
local record = KEYS[3] ~= '' and KEYS[3] or grant_record(KEYS[1], ARGV[1])
local replayed, previous = latch_replay(latch)
if replayed then
    return previous
end
local declared = declared_from(4)
local own = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
for i = 1, own or 0 do
    if not declared[read_hold(hash_tagged(KEYS[1]), ARGV[1], i)] then
        return UNDECLARED
    end
end
local tidy = readers_declared(KEYS[1], hash_tagged(KEYS[1]), declared)
if ARGV[5] == '1' and not tidy then
    return UNDECLARED
end
local function release()
    local key = KEYS[1]
    local base = hash_tagged(key)

    local reader = ARGV[1]
    local count = tonumber(redis.call('hget', key, reader))
    if not count then
        return nil
    end
    if ARGV[7] ~= '' and not take_lost_grant(record, ARGV[7]) then
        -- The reader's holds are not ones the lost attempts took: keep them.
        return nil
    end
    local live = false
    for i = count, 1, -1 do
        if redis.call('exists', read_hold(base, reader, i)) == 1 then
            live = true
            break
        end
    end
    if not live then
        -- Every hold of this reader expired: it no longer holds the lock, whatever the hash still says.
        redis.call('hdel', key, reader)
        redis.call('del', record)
        local longest = tidy and sweep(key, base) or -3
        if redis.call('hget', key, 'mode') == 'read' then
            if redis.call('hlen', key) <= 1 then
                redis.call('del', key)
                announce(publisher(ARGV[4]), companion('redisson_rwlock', KEYS[1]), '1')
            elseif longest > 0 then
                redis.call('pexpire', key, longest)
            end
        end
        return nil
    end
    -- An unlock does not say which of the reader's holds it ends (tasks sharing an owner unlock in
    -- any order), so it ends the one that expires first and the others keep their leases; the
    -- newest moves into its place, so that holds stay numbered 1..count as Redisson numbers them.
    local ending, least = count, nil
    for i = ARGV[6] == 'first' and count or 0, 1, -1 do
        local ttl = redis.call('pttl', read_hold(base, reader, i))
        if ttl == -1 then
            ttl = math.huge
        end
        if least == nil or ttl < least then
            ending, least = i, ttl
        end
    end
    redis.call('del', read_hold(base, reader, ending))
    if ending ~= count and redis.call('exists', read_hold(base, reader, count)) == 1 then
        redis.call('rename', read_hold(base, reader, count), read_hold(base, reader, ending))
    end
    if count <= 1 then
        redis.call('hdel', key, reader)
        redis.call('del', record)
    else
        redis.call('hset', key, reader, count - 1)
    end
    local mode = redis.call('hget', key, 'mode')
    local longest = tidy and sweep(key, base) or -3
    if mode == 'read' then
        if redis.call('hlen', key) <= 1 then
            redis.call('del', key)
            announce(publisher(ARGV[4]), companion('redisson_rwlock', KEYS[1]), '1')
        elseif longest > 0 then
            redis.call('pexpire', key, longest)
        end
    end
    if count <= 1 then
        return 1
    end
    return 0
end

return latch_record(latch, release(), ARGV[3])
