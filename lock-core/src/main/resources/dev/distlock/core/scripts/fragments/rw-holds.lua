-- The read holds of a read-write lock: hold n of a reader lives as {key}:<reader>:rwlock_timeout:<n>
-- ({key}, or key when it contains a brace: hash_tagged in the layout fragment, which must be included
-- before this one), its TTL being the hold's lease.
-- A script decides on these keys only when its caller declared them in KEYS. In a cluster, a live
-- slot migration moves a lock's keys in batches, so the hash may already be on the importing node
-- while timeout keys are still on the migrating one (or the other way round); Redis refuses to run a
-- script (ASK, TRYAGAIN) only until the keys it declared are together, so an undeclared timeout key
-- that is absent here may be alive on the other node, and a reader taken for expired is not.

-- Returned, with no hold granted or given up, by a script that would have to decide on a read hold
-- timeout key its caller did not declare: the caller reads the lock's readers and calls again.
local UNDECLARED = -4

local function read_hold(base, field, n)
    return base .. ':' .. field .. ':rwlock_timeout:' .. n
end

-- Returns the set of KEYS from index first on.
local function declared_from(first)
    local declared = {}
    for i = first, #KEYS do
        declared[KEYS[i]] = true
    end
    return declared
end

-- Returns whether the timeout keys of every hold of every reader of the lock are declared.
local function readers_declared(key, base, declared)
    for _, field in ipairs(redis.call('hkeys', key)) do
        if field ~= 'mode' and string.sub(field, -6) ~= ':write' then
            local count = tonumber(redis.call('hget', key, field))
            if count then
                for i = 1, count do
                    if not declared[read_hold(base, field, i)] then
                        return false
                    end
                end
            end
        end
    end
    return true
end

-- Drops the readers none of whose holds is still alive, and returns the longest remaining read
-- hold in ms, or -3 when none remains. Only after readers_declared said yes.
local function sweep(key, base)
    local longest = -3
    for _, field in ipairs(redis.call('hkeys', key)) do
        if field ~= 'mode' and string.sub(field, -6) ~= ':write' then
            local count = tonumber(redis.call('hget', key, field))
            if count then
                local alive = false
                for i = count, 1, -1 do
                    local ttl = redis.call('pttl', read_hold(base, field, i))
                    if ttl ~= -2 then
                        alive = true
                        longest = math.max(longest, ttl)
                    end
                end
                if not alive then
                    redis.call('hdel', key, field)
                end
            end
        end
    end
    return longest
end
