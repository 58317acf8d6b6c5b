-- Renews many watchdog holds in one call.
-- KEYS[i] lock key of hold i
-- ARGV[1] lease in ms
-- ARGV[i+1] owner field of hold i
-- Returns a list: 1 where the owner still held the lock (lease reset), 0 where it did not, -1 where
-- the key could not be read (e.g. WRONGTYPE): unknown, so the client retries it instead of
-- declaring it lost, and one bad key never fails the renewal of the others.
local renewed = {}
for i, key in ipairs(KEYS) do
    local held = redis.pcall('hexists', key, ARGV[i + 1])
    if type(held) == 'table' then
        renewed[i] = -1
    elseif held == 1 then
        redis.call('pexpire', key, ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
