-- Renews many watchdog read holds in one call: each owner's own hold timeouts and the lock's TTL.
-- KEYS[i] lock key of hold i
-- KEYS[n+j] read hold timeouts: after the n lock keys, the timeout keys of the holds' owners (hold
--         1 to the count the client knows of, per owner); only declared keys are renewed or read
-- ARGV[1] lease in ms
-- ARGV[i+1] reader field of hold i
-- Returns a list: 1 where the owner still held a live read lock (renewed), 0 where it did not, -1
-- where that cannot be told here: the key could not be read (e.g. WRONGTYPE), or no declared hold
-- is alive but the lock counts holds whose keys were not declared (in a cluster, such a key absent
-- here may be alive on the other node of a slot migration). Unknown is retried by the client
-- rather than declared lost, and never fails the renewal of the other holds.
--! include layout
--! include rw-holds
local holds = #ARGV - 1
local declared = declared_from(holds + 1)
local renewed = {}
for i = 1, holds do
    local key = KEYS[i]
    local field = ARGV[i + 1]
    local base = hash_tagged(key)
    local stored = redis.pcall('hget', key, field)
    local count = type(stored) ~= 'table' and tonumber(stored) or nil
    local alive = false
    local unseen = false
    if count then
        for n = count, 1, -1 do
            local hold = read_hold(base, field, n)
            if not declared[hold] then
                unseen = true
            elseif redis.call('pexpire', hold, ARGV[1]) == 1 then
                alive = true
            end
        end
    end
    if type(stored) == 'table' or (unseen and not alive) then
        renewed[i] = -1
    elseif alive then
        redis.call('pexpire', key, math.max(redis.call('pttl', key), tonumber(ARGV[1])))
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
