-- Renews the watchdog permits of one semaphore: each permit still taken and not yet expired gets
-- the new expiry.
-- KEYS[1] timeout key: taken permit ids scored by expiry
-- ARGV[1] lease in ms
-- ARGV[i+1] permit id i: hex text
-- Returns a list: 1 where the permit was renewed, 0 where it is no longer taken (released, or its
-- lease ended).
--! include server-clock
--! include semaphore-permits
local now = server_now()
local renewed = {}
for i = 2, #ARGV do
    local id = permitBytes(ARGV[i])
    local expiry = redis.call('zscore', KEYS[1], id)
    if expiry ~= false and tonumber(expiry) > now then
        redis.call('zadd', KEYS[1], 'xx', now + tonumber(ARGV[1]), id)
        renewed[i - 1] = 1
    else
        renewed[i - 1] = 0
    end
end
return renewed
