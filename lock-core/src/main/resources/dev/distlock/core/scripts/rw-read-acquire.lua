-- Takes (or re-enters) the read side of a read-write lock. Redisson-compatible layout: hash with
-- field mode = read/write and owner -> hold count; hold n of an owner has its own lease as the TTL of
-- {key}:<owner>:rwlock_timeout:<n>. Writers that wait are recorded in a zset (owner -> deadline), and
-- while one is recorded new readers stay out, so a stream of readers cannot starve writers.
-- KEYS[1] lock key
-- KEYS[2] waiting writers: zset of writer field to claim deadline, distlock_rwlock_writers:{key}
-- KEYS[3...] read hold timeouts: the timeout key of every hold of the caller up to its next one,
--         and of every other reader as the caller last saw the lock (see the rw-holds fragment);
--         dead readers are dropped only when all are declared, a reader's entry never depends on it
-- ARGV[1] lease in ms
-- ARGV[2] reader field: the caller's owner field as a reader (its writer field adds ':write')
-- Returns nil when acquired, else how long to park before trying again in ms (-1 unknown), or -4
-- (no hold granted) when the caller's next hold's timeout key was not declared.
--! include layout
--! include server-clock
--! include rw-holds
local writers = KEYS[2]
local now = server_now()
local key = KEYS[1]
local base = hash_tagged(key)
local declared = declared_from(3)

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
local writer = mode == 'write' and redis.call('hexists', key, ARGV[2] .. ':write') == 1
if mode == false or mode == 'read' or writer then
    local reentry = redis.call('hexists', key, reader) == 1
    if writer or reentry or redis.call('zcard', writers) == 0 then
        local n = (tonumber(redis.call('hget', key, reader)) or 0) + 1
        if not declared[read_hold(base, reader, n)] then
            return UNDECLARED
        end
        if mode == false then
            redis.call('hset', key, 'mode', 'read')
        end
        redis.call('hincrby', key, reader, 1)
        redis.call('set', read_hold(base, reader, n), 1, 'px', ARGV[1])
        local ttl = redis.call('pttl', key)
        redis.call('pexpire', key, math.max(ttl, tonumber(ARGV[1])))
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
