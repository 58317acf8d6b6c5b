-- Takes (or re-enters) a reentrant lock. Redisson-compatible layout: hash owner -> hold count.
-- KEYS[1] lock key: its set of Distlock clients with a waiter parked on this lock,
--         distlock_lock_waiters:{key}, is named from it (layout fragment); no client is listed in
--         a cluster, where releases broadcast
-- KEYS[2] grant record: of the owner, distlock_lock_grant:{key}:<owner field>; declared in a
--         cluster when an attempt id is given (elsewhere the script names it from the lock key), so
--         that a live slot migration that moved the hash without it makes Redis refuse the call
--         (TRYAGAIN) instead of the record being written on a node where another one still lives
-- ARGV[1] lease in ms
-- ARGV[2] owner field: <client id>:<owner id>
-- ARGV[3] acquire mode: '1' when the caller may already hold the lock (a re-entry), '0' when it
--         knows it does not, '2' when it holds nothing but an earlier attempt's reply was lost
--         (adopt what that attempt took); then 'l' to list the owner's client as waiting when
--         refused, and 'u' to unlist it when acquired because its last waiter got the lock
-- ARGV[4] listing slack in ms: how long the listing outlives the caller's longest park (the
--         holder's lease), so a live waiter always renews it in time and a dead client's entry
--         disappears by itself ('' when not listing)
-- ARGV[5] attempt id: recorded as the owner's grant when this attempt takes the lock afresh or
--         adopts a lost grant, so that the clean-up after a lost reply undoes only what that
--         attempt took ('' for a re-entry of a hold the client knows, which is never cleaned up)
-- Returns nil when acquired, else the holder's remaining lease in ms.
-- A refused attempt costs one PTTL (plus SADD for a parked waiter): waiters retry, so that path is lean.
--! include layout
--! include grant-record
--! include owner-lease
local function waiting_clients()
    return companion('distlock_lock_waiters', KEYS[1])
end
local mode = string.sub(ARGV[3], 1, 1)
local to_list = string.find(ARGV[3], 'l', 2, true) and owner_client(ARGV[2]) or ''
local to_unlist = string.find(ARGV[3], 'u', 2, true) and owner_client(ARGV[2]) or ''
local ttl = redis.call('pttl', KEYS[1])
local mine = ttl ~= -2 and mode ~= '0' and redis.call('hexists', KEYS[1], ARGV[2]) == 1
if ttl == -2 or mine then
    -- Mode '2' adopts a hold that an earlier attempt of this owner took but whose reply was lost.
    local adopted = mine and mode == '2'
    if not adopted then
        redis.call('hincrby', KEYS[1], ARGV[2], 1)
    end
    if mine then
        extend_lease(KEYS[1], ARGV[1])
    else
        redis.call('pexpire', KEYS[1], ARGV[1])
    end
    if ARGV[5] ~= '' and (adopted or not mine) then
        record_grant(KEYS[2] or grant_record(KEYS[1], ARGV[2]), ARGV[5], ARGV[1])
    end
    if to_unlist ~= '' then
        redis.call('srem', waiting_clients(), to_unlist)
    end
    return nil
end
if to_list ~= '' then
    redis.call('sadd', waiting_clients(), to_list)
    -- A waiter parks at most the holder's lease (1 s when it has none) before trying again.
    local keep = math.max(ttl, 1000) + (tonumber(ARGV[4]) or 0)
    if redis.call('pttl', waiting_clients()) < keep then
        redis.call('pexpire', waiting_clients(), keep)
    end
end
return ttl
