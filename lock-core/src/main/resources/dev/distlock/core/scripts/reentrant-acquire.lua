-- Takes (or re-enters) a reentrant lock. Redisson-compatible layout: hash owner -> hold count.
-- KEYS[1] lock key
-- KEYS[2] waiting clients: set of Distlock clients with a waiter parked on this lock
-- ARGV[1] lease in ms
-- ARGV[2] owner field
-- ARGV[3] acquire mode: '1' when the caller may already hold the lock (a re-entry), '0' when it
--         knows it does not, '2' when it holds nothing but an earlier attempt's reply was lost
--         (adopt what that attempt took)
-- ARGV[4] client to list: client id to list as waiting when refused ('' for none)
-- ARGV[5] client to unlist: client id to unlist when acquired, because its last waiter got the
--         lock ('' for none)
-- ARGV[6] listing slack in ms: how long the listing outlives the caller's longest park (the
--         holder's lease), so a live waiter always renews it in time and a dead client's entry
--         disappears by itself
-- Returns nil when acquired, else the holder's remaining lease in ms.
-- A refused attempt costs one PTTL (plus SADD for a parked waiter): waiters retry, so that path is lean.
local ttl = redis.call('pttl', KEYS[1])
local mine = ttl ~= -2 and ARGV[3] ~= '0' and redis.call('hexists', KEYS[1], ARGV[2]) == 1
if ttl == -2 or mine then
    -- Mode '2' adopts a hold that an earlier attempt of this owner took but whose reply was lost.
    if not (mine and ARGV[3] == '2') then
        redis.call('hincrby', KEYS[1], ARGV[2], 1)
    end
    redis.call('pexpire', KEYS[1], ARGV[1])
    if ARGV[5] ~= '' then
        redis.call('srem', KEYS[2], ARGV[5])
    end
    return nil
end
if ARGV[4] ~= '' then
    redis.call('sadd', KEYS[2], ARGV[4])
    -- A waiter parks at most the holder's lease (1 s when it has none) before trying again.
    local keep = math.max(ttl, 1000) + (tonumber(ARGV[6]) or 0)
    if redis.call('pttl', KEYS[2]) < keep then
        redis.call('pexpire', KEYS[2], keep)
    end
end
return ttl
