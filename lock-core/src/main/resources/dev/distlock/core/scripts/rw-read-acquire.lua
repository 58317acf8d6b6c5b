-- Takes (or re-enters) the read side of a read-write lock. Redisson-compatible layout: hash with
-- field mode = read/write and owner -> hold count; hold n of an owner has its own lease as the TTL of
-- {key}:<owner>:rwlock_timeout:<n>. Writers that wait are recorded in a zset (owner -> deadline), and
-- while one is recorded new readers stay out, so a stream of readers cannot starve writers.
-- KEYS[1] lock key
-- KEYS[2] waiting writers: zset of writer field to claim deadline, distlock_rwlock_writers:{key}
-- KEYS[3] grant record: of the reader, distlock_lock_grant:{key}:<reader field>, in a cluster, so
--         that a live slot migration that moved the hash without it makes Redis refuse the call
--         (TRYAGAIN) instead of the record being written on a node where another one still lives;
--         '' elsewhere (the script names it from the lock key)
-- KEYS[4...] read hold timeouts: the timeout key of every hold of the caller up to its next one,
--         and of every other reader as the caller last saw the lock (see the rw-holds fragment);
--         dead readers are dropped only when all are declared, a reader's entry never depends on it
-- ARGV[1] lease in ms
-- ARGV[2] reader field: the caller's owner field as a reader (its writer field adds ':write')
-- ARGV[3] attempt id: recorded as the reader's grant when this attempt takes its first read hold
--         or adopts a lost grant, so that the clean-up after a lost reply (rw-read-release's lost
--         attempts) undoes only what that attempt took ('' for a re-entry of a hold the client
--         knows, which is never cleaned up)
-- ARGV[4] mode: '0' fresh: the owner holds nothing the client knows and none of its
--         attempts is in flight or lost, so a hold of the owner found here is an orphan (its
--         release was lost in a failover, or failed) that must expire with its lease, not be
--         re-entered and renewed by every later acquisition; '1' the owner may hold the lock (a
--         re-entry); '2' adopt: the owner holds nothing the client knows but an earlier attempt's
--         reply was lost, so a hold of the owner found here is that attempt's, taken over rather
--         than counted again
-- Returns nil when acquired, else how long to park before trying again in ms (-1 unknown), or -4
-- (no hold granted) when the caller's next hold's timeout key was not declared.
--! include layout
--! include server-clock
--! include rw-holds
--! include grant-record
local writers = KEYS[2]
local now = server_now()
local key = KEYS[1]
local base = hash_tagged(key)
local declared = declared_from(4)

local mode = redis.call('hget', key, 'mode')
if mode == 'read' and readers_declared(key, base, declared) then
    sweep(key, base)
    if redis.call('hlen', key) <= 1 then
        redis.call('del', key)
        mode = false
    end
end
redis.call('zremrangebyscore', writers, '-inf', now)

local reader = ARGV[2]
-- The reader's own write hold lets it read whatever its read holds' mode: the write lock's client
-- knows that hold, not this one.
local writer = mode == 'write' and redis.call('hexists', key, ARGV[2] .. ':write') == 1
if mode == false or mode == 'read' or writer then
    -- A fresh reader's orphan hold (count and timeout key) is left to expire: not a re-entry.
    local reentry = ARGV[4] ~= '0' and redis.call('hexists', key, reader) == 1
    if writer or reentry or redis.call('zcard', writers) == 0 then
        local count = tonumber(redis.call('hget', key, reader)) or 0
        -- Adopted: the newest hold is the one an earlier attempt of this reader took, whose reply was lost.
        local adopted = reentry and count > 0 and ARGV[4] == '2'
        local n = adopted and count or count + 1
        if not declared[read_hold(base, reader, n)] then
            return UNDECLARED
        end
        if mode == false then
            redis.call('hset', key, 'mode', 'read')
        end
        if not adopted then
            redis.call('hincrby', key, reader, 1)
        end
        redis.call('set', read_hold(base, reader, n), 1, 'px', ARGV[1])
        local ttl = redis.call('pttl', key)
        redis.call('pexpire', key, math.max(ttl, tonumber(ARGV[1])))
        if ARGV[3] ~= '' and (adopted or not reentry) then
            record_grant(KEYS[3] ~= '' and KEYS[3] or grant_record(key, reader), ARGV[3], ARGV[1])
        end
        return nil
    end
    -- A writer is waiting: park until the holders' leases end or the earliest writer claim lapses.
    local ttl = redis.call('pttl', key)
    local first = redis.call('zrange', writers, 0, 0, 'withscores')
    local claim = math.max(1, tonumber(first[2]) - now + 1)
    if ttl >= 0 then
        return math.min(math.max(ttl, 1), claim)
    end
    return claim
end
return redis.call('pttl', key)
