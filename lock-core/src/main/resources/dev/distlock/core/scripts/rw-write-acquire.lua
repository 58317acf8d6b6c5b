-- Takes (or re-enters) the write side of a read-write lock. A refused writer that is prepared to wait
-- records a claim (owner -> deadline, server clock) that keeps new readers out until it gets the lock,
-- gives up, or stops renewing the claim (died).
-- KEYS[1] lock key
-- KEYS[2] waiting writers: zset of writer field to claim deadline, distlock_rwlock_writers:{key}
-- KEYS[3] grant record: of the writer, distlock_lock_grant:{key}:<writer field>, in a cluster, so
--         that a live slot migration that moved the hash without it makes Redis refuse the call
--         (TRYAGAIN) instead of the record being written on a node where another one still lives;
--         '' elsewhere (the script names it from the lock key)
-- KEYS[4...] read hold timeouts: the timeout key of every hold of every reader, as the caller last
--         saw the lock (see the rw-holds fragment); none is needed while the lock is free
-- ARGV[1] lease in ms
-- ARGV[2] writer field
-- ARGV[3] remaining wait in ms: the caller's (0: no claim)
-- ARGV[4] claim timeout in ms
-- ARGV[5] longest park in ms
-- ARGV[6] attempt id: recorded as the writer's grant when this attempt takes the lock afresh or
--         adopts a lost grant, so that the clean-up after a lost reply (rw-write-release's lost
--         attempts) undoes only what that attempt took ('' for a re-entry of a hold the client
--         knows, which is never cleaned up)
-- ARGV[7] mode: '0' fresh: the owner holds nothing the client knows and none of its
--         attempts is in flight or lost, so a hold of the owner found here is an orphan (its
--         release was lost in a failover, or failed) that must expire with its lease, not be
--         re-entered and renewed by every later acquisition; '1' the owner may hold the lock (a
--         re-entry); '2' adopt: the owner holds nothing the client knows but an earlier attempt's
--         reply was lost, so a hold of the owner found here is that attempt's, taken over rather
--         than counted again
-- Returns nil when acquired, else how long to park before trying again in ms (-1 unknown), or -4
-- (no hold granted; a waiting caller's claim recorded) when the lock has read holds whose timeout
-- keys were not declared.
--! include layout
--! include server-clock
--! include rw-holds
--! include grant-record
--! include owner-lease
local writers = KEYS[2]
local now = server_now()
local key = KEYS[1]
local base = hash_tagged(key)

local writer = ARGV[2]
local lease = tonumber(ARGV[1])
local record = KEYS[3] ~= '' and KEYS[3] or grant_record(key, writer)
local mode = redis.call('hget', key, 'mode')
local mine = mode == 'write' and ARGV[7] ~= '0' and redis.call('hexists', key, writer) == 1
-- A sweep (read mode) and a re-entry (the writer's own read holds keep the lock alive) decide on the
-- read holds' timeout keys.
if (mode == 'read' or mine) and not readers_declared(key, base, declared_from(4)) then
    -- Still claim the lock for a caller that waits, so that new readers stay out while it looks.
    if mode == 'read' and tonumber(ARGV[3]) ~= 0 then
        redis.call('zadd', writers, now + tonumber(ARGV[4]), writer)
        redis.call('pexpire', writers, ARGV[4])
    end
    return UNDECLARED
end
if mode == 'read' then
    sweep(key, base)
    if redis.call('hlen', key) <= 1 then
        redis.call('del', key)
        mode = false
    end
end
redis.call('zremrangebyscore', writers, '-inf', now)

if mode == false then
    redis.call('hset', key, 'mode', 'write', writer, 1)
    redis.call('pexpire', key, lease)
    redis.call('zrem', writers, writer)
    if ARGV[6] ~= '' then
        record_grant(record, ARGV[6], ARGV[1])
    end
    return nil
end
if mine then
    if ARGV[7] == '2' then
        -- Adopted: the hold an earlier attempt of this writer took, whose reply was lost.
        if ARGV[6] ~= '' then
            record_grant(record, ARGV[6], ARGV[1])
        end
    else
        redis.call('hincrby', key, writer, 1)
    end
    -- A re-entry never shortens the writer's other holds, and keeps its own read holds covered.
    redis.call('pexpire', key, math.max(lease, sweep(key, base), redis.call('pttl', key)))
    return nil
end

local ttl = redis.call('pttl', key)
if tonumber(ARGV[3]) == 0 then
    return ttl
end
redis.call('zadd', writers, now + tonumber(ARGV[4]), writer)
redis.call('pexpire', writers, ARGV[4])
local park = tonumber(ARGV[5])
if ttl >= 0 then
    -- A lease about to end (0 ms left) means "try again now", not "park the full interval".
    park = math.min(park, math.max(ttl, 1))
end
return park
