-- Passes on a targeted wake-up that reached a client whose waiters had already left.
-- KEYS[1] lock key
-- KEYS[2] unlock channel
-- KEYS[3] waiting clients: set of Distlock clients with a parked waiter
-- ARGV[1] unlock message
-- ARGV[2] wake-up channel prefix: of the per-client wake-up channels
-- ARGV[3] passing client
-- ARGV[4] publish command: of the broadcast, PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when someone was woken, 0 when the lock is held again (its release will wake someone).
--! include announce
--! include wake-one-client
redis.call('srem', KEYS[3], ARGV[3])
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
wake_one_client(KEYS[3], ARGV[2], KEYS[2], ARGV[1], ARGV[4])
return 1
