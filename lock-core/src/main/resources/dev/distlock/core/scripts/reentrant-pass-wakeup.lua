-- Passes on a targeted wake-up that reached a client whose waiters had already left.
-- KEYS[1] lock key, KEYS[2] unlock channel, KEYS[3] set of Distlock clients with a parked waiter
-- ARGV[1] unlock message, ARGV[2] prefix of the per-client wake-up channels, ARGV[3] the passing client
-- Returns 1 when someone was woken, 0 when the lock is held again (its release will wake someone).
redis.call('srem', KEYS[3], ARGV[3])
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
local woken = 0
while woken == 0 do
    local client = redis.call('srandmember', KEYS[3])
    if not client then
        break
    end
    woken = redis.call('publish', ARGV[2] .. client, ARGV[1])
    if woken == 0 then
        redis.call('srem', KEYS[3], client)
    end
end
if woken == 0 then
    redis.call('publish', KEYS[2], ARGV[1])
end
return 1
