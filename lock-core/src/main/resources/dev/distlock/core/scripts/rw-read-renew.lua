-- Renews many watchdog read holds in one call: each owner's own hold timeouts and the lock's TTL.
-- KEYS[i] lock key of hold i
-- ARGV[1] lease in ms
-- ARGV[i+1] reader field of hold i
-- Returns a list: 1 where the owner still held a live read lock (renewed), 0 where it did not, -1
-- where the key could not be read (e.g. WRONGTYPE): unknown, retried by the client rather than
-- declared lost, and never failing the renewal of the other holds.
--! include layout
--! include rw-holds
local renewed = {}
for i, key in ipairs(KEYS) do
    local field = ARGV[i + 1]
    local base = hash_tagged(key)
    local stored = redis.pcall('hget', key, field)
    local count = type(stored) ~= 'table' and tonumber(stored) or nil
    local alive = false
    if count then
        for n = count, 1, -1 do
            if redis.call('pexpire', base .. ':' .. field .. ':rwlock_timeout:' .. n, ARGV[1]) == 1 then
                alive = true
            end
        end
    end
    if type(stored) == 'table' then
        renewed[i] = -1
    elseif alive then
        redis.call('pexpire', key, math.max(redis.call('pttl', key), tonumber(ARGV[1])))
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
