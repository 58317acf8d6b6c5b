-- Takes one permit of a semaphore: gives back the permits whose lease ended, then takes one if any
-- is available, recording its id with its expiry as Redisson's RPermitExpirableSemaphore does.
-- KEYS[1] semaphore key: available permits
-- KEYS[2] timeout key: taken permit ids scored by expiry
-- KEYS[3] semaphore channel
-- ARGV[1] permit id: hex text
-- ARGV[2] lease in ms
-- ARGV[3] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns {1, permits still available} when taken; else {0, ms until the earliest expiry of a taken
-- permit, or -1 when none will expire (none taken, or only Redisson's permits without a lease)}.
--! include server-clock
--! include announce
--! include semaphore-permits
local now = server_now()
reclaimExpired(KEYS[1], KEYS[2], KEYS[3], now, ARGV[3])
local value = redis.call('get', KEYS[1])
if value ~= false and tonumber(value) >= 1 then
    local left = redis.call('decrby', KEYS[1], 1)
    redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), permitBytes(ARGV[1]))
    -- Redisson keeps the timeout key no longer than the semaphore key when that one expires.
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        redis.call('pexpire', KEYS[2], ttl)
    end
    return {1, left}
end
-- Redisson's permits taken without a lease are scored 922337203685477: they never expire.
local first = redis.call('zrange', KEYS[2], 0, 0, 'withscores')
if first[2] ~= nil and tonumber(first[2]) < 922337203685477 then
    return {0, math.max(0, tonumber(first[2]) - now)}
end
return {0, -1}
