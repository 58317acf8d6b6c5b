-- Renews many watchdog holds in one call.
-- KEYS[i] lock key of hold i
-- ARGV[1] lease in ms, ARGV[i + 1] owner field of hold i
-- Returns a list: 1 where the owner still held the lock (lease reset), 0 where it did not.
local renewed = {}
for i, key in ipairs(KEYS) do
    if redis.call('hexists', key, ARGV[i + 1]) == 1 then
        redis.call('pexpire', key, ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
