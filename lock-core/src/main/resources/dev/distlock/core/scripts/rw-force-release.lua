-- Deletes a read-write lock in the given mode whoever holds it, with its read hold timeouts and its
-- owners' grant records, and wakes every waiter.
-- KEYS[1] lock key
-- KEYS[2] read-write channel
-- ARGV[1] wake-all message
-- ARGV[2] mode to delete: read or write
-- ARGV[3] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when a lock was deleted, else 0.
--! include announce
--! include layout
--! include rw-holds
local key = KEYS[1]
if redis.call('hget', key, 'mode') ~= ARGV[2] then
    return 0
end
local base = hash_tagged(key)
for _, field in ipairs(redis.call('hkeys', key)) do
    if field ~= 'mode' then
        redis.call('del', companion('distlock_lock_grant', key) .. ':' .. field)
    end
    if field ~= 'mode' and string.sub(field, -6) ~= ':write' then
        local count = tonumber(redis.call('hget', key, field))
        if count then
            for i = count, 1, -1 do
                redis.call('del', base .. ':' .. field .. ':rwlock_timeout:' .. i)
            end
        end
    end
end
redis.call('del', key)
announce(ARGV[3], KEYS[2], ARGV[1])
return 1
