-- Drops the readers of a read-write lock none of whose holds is still alive (each hold n of an
-- owner lives as {key}:<owner>:rwlock_timeout:<n>), and returns the longest remaining read hold in
-- ms, or -3 when none remains.
-- key: the lock key; base: the prefix of its timeout keys ({key}, or key when it contains a brace)
local function sweep(key, base)
    local longest = -3
    for _, field in ipairs(redis.call('hkeys', key)) do
        if field ~= 'mode' and string.sub(field, -6) ~= ':write' then
            local count = tonumber(redis.call('hget', key, field))
            if count then
                local alive = false
                for i = count, 1, -1 do
                    local ttl = redis.call('pttl', base .. ':' .. field .. ':rwlock_timeout:' .. i)
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

-- Returns the prefix of a lock's read-hold timeout keys by Redisson's rule (suffixName), as
-- RedissonLayout does in Java: {key}, or the key itself when it contains '{'. In a cluster the client
-- only runs scripts on keys for which this keeps the timeouts in the lock's slot (others it stores
-- under a key with a hash tag of its own), so the rule needs no knowledge of the topology.
local function hash_tagged(key)
    if string.find(key, '{', 1, true) then
        return key
    end
    return '{' .. key .. '}'
end
