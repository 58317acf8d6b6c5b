-- Renews the watchdog permits of one semaphore: each permit still taken and not yet expired gets
-- the new expiry.
-- KEYS[1] timeout key: taken permit ids scored by expiry
-- ARGV[1] now: ms since the epoch
-- ARGV[2] expiry: ms since the epoch
-- ARGV[i+2] permit id i: hex text
-- Returns a list: 1 where the permit was renewed, 0 where it is no longer taken (released, or its
-- lease ended).
--! include semaphore-permits
local renewed = {}
for i = 3, #ARGV do
    local id = permitBytes(ARGV[i])
    local expiry = redis.call('zscore', KEYS[1], id)
    if expiry ~= false and tonumber(expiry) > tonumber(ARGV[1]) then
        redis.call('zadd', KEYS[1], 'xx', ARGV[2], id)
        renewed[i - 2] = 1
    else
        renewed[i - 2] = 0
    end
end
return renewed
