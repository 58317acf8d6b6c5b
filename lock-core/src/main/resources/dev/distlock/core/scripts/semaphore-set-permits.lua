-- Sets the number of permits of a semaphore that has none set yet, as Redisson's trySetPermits.
-- KEYS[1] semaphore key: available permits
-- KEYS[2] semaphore channel
-- ARGV[1] permits
-- ARGV[2] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when set, 0 when the semaphore had its permits set already.
--! include announce
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('set', KEYS[1], ARGV[1])
announce(ARGV[2], KEYS[2], ARGV[1])
return 1
