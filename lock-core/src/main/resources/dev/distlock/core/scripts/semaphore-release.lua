-- Gives back one permit of a semaphore by its id and announces the permits now available (the
-- message Redisson's waiters read).
-- KEYS[1] semaphore key: available permits
-- KEYS[2] timeout key: taken permit ids scored by expiry
-- KEYS[3] semaphore channel
-- ARGV[1] permit id: hex text
-- ARGV[2] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when the permit was given back; -1 when it was still recorded but its lease had ended
-- (given back now all the same); 0 when no such permit is taken (released, expired and given back,
-- or never taken).
--! include server-clock
--! include announce
--! include semaphore-permits
local id = permitBytes(ARGV[1])
local expiry = redis.call('zscore', KEYS[2], id)
if expiry == false then
    return 0
end
redis.call('zrem', KEYS[2], id)
local value = redis.call('incrby', KEYS[1], 1)
announce(ARGV[2], KEYS[3], value)
if tonumber(expiry) <= server_now() then
    return -1
end
return 1
