-- Permits of a semaphore in Redisson's RPermitExpirableSemaphore layout: the semaphore key counts
-- the available permits, the timeout key scores each taken permit's id by its expiry (ms since the
-- epoch). Distlock reads the Redis server's clock for it (server-clock), never a client's, so that
-- clients whose clocks disagree still agree on every expiry; Redisson uses its own clock. Redisson stores an id as the bytes its hex text spells; so do we, so
-- that either library can read the other's permits.
local function permitBytes(hex)
    return (string.gsub(hex, '..', function(pair) return string.char(tonumber(pair, 16)) end))
end

-- Gives back the permits whose lease ended by now and, when permits are free, announces how many,
-- as Redisson's scripts do before every acquire and count. At most 1000 a call (unpack's limit);
-- the rest are given back by the next call.
local function reclaimExpired(semaphore, timeouts, channel, now, publish)
    local expired = redis.call('zrangebyscore', timeouts, 0, now, 'limit', 0, 1000)
    if #expired > 0 then
        redis.call('zrem', timeouts, unpack(expired))
        local value = redis.call('incrby', semaphore, #expired)
        if value > 0 then
            announce(publish, channel, value)
        end
    end
end
