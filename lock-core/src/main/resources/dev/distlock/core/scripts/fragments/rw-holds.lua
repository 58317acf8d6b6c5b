-- Drops the readers of a read-write lock none of whose holds is still alive (each hold n of an
-- owner lives as {key}:<owner>:rwlock_timeout:<n>), and returns the longest remaining read hold in
-- ms, or -3 when none remains.
-- key: the lock key; base: the prefix of its timeout keys ({key}, or key when it has a hash tag)
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

-- Returns the prefix of a lock's read-hold timeout keys, as RedisNames.base does in Java: {key}, or
-- the key itself when it has a hash tag (Redis Cluster hashes only the text between the first '{'
-- and the next '}', if not empty), so that in a cluster they share the lock's slot. A key with
-- braces that form no tag is used as is outside a cluster (Redisson's names), and wrapped in a
-- cluster, where the whole key is hashed (the client refuses such keys that also contain '}').
local function hash_tagged(key)
    local open = string.find(key, '{', 1, true)
    if not open then
        return '{' .. key .. '}'
    end
    local close = string.find(key, '}', open + 1, true)
    if close and close > open + 1 then
        return key
    end
    if string.find(redis.call('info', 'cluster'), 'cluster_enabled:1', 1, true) then
        return '{' .. key .. '}'
    end
    return key
end
