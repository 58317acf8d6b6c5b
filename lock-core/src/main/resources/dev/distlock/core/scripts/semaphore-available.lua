-- Counts the available permits of a semaphore, after giving back those whose lease ended.
-- KEYS[1] semaphore key: available permits
-- KEYS[2] timeout key: taken permit ids scored by expiry
-- KEYS[3] semaphore channel
-- ARGV[1] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns the available permits (0 when none were ever set).
--! include server-clock
--! include announce
--! include semaphore-permits
reclaimExpired(KEYS[1], KEYS[2], KEYS[3], server_now(), ARGV[1])
local value = redis.call('get', KEYS[1])
if value == false then
    return 0
end
return tonumber(value)
