-- Drops the readers of a read-write lock none of whose holds is still alive (each hold n of an
-- owner lives as {key}:<owner>:rwlock_timeout:<n>), and returns the longest remaining read hold in
-- ms, or -3 when none remains.
-- key: the lock key; base: the prefix of its timeout keys ({key}, or key when it contains a brace;
-- hash_tagged in the layout fragment, which must be included before this one)
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
