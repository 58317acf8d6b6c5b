-- Takes (or re-enters) every member of a multi lock that lives on this server (in a cluster, in
-- this slot) at once, or none of them. Each member keeps the reentrant lock's Redisson layout
-- (hash owner -> hold count, lease as the key's TTL), so a plain lock of the same name, Redisson's
-- or Distlock's, excludes the multi lock and is excluded by it.
-- KEYS[i] lock key of member i: its companion keys are named from it (layout fragment)
-- KEYS[n+i] grant record of member i: after the n lock keys, in a cluster only, so that a live slot
--         migration that moved a member's hash without it makes Redis refuse the call (TRYAGAIN)
--         instead of the record being written on a node where another one still lives
-- ARGV[1] lease in ms
-- ARGV[2] attempt id: recorded as each member's grant where this attempt takes it afresh or adopts
--         a lost grant, so that the clean-up after a lost reply undoes only what this attempt took
-- ARGV[3] acquire modes: one character per member, as the first of reentrant-acquire's ARGV[3]:
--         '1' the owner may hold it already, '0' it does not, '2' adopt a lost attempt's hold
-- ARGV[4] listing slack in ms: when not '', a refusal lists the owner's client as waiting on the
--         member that refused it, as reentrant-acquire's 'l' mode does ('' when not waiting)
-- ARGV[i+4] owner field of member i
-- Returns an empty list when every member was acquired; else {i, ttl}, the first member held by
-- someone else and its remaining lease in ms, and nothing was changed.
--! include layout
--! include grant-record
--! include owner-lease
-- One owner field per member after the four fixed ARGV.
local count = #ARGV - 4
local mine = {}
for i = 1, count do
    local key = KEYS[i]
    local mode = string.sub(ARGV[3], i, i)
    local ttl = redis.call('pttl', key)
    mine[i] = ttl ~= -2 and mode ~= '0' and redis.call('hexists', key, ARGV[i + 4]) == 1
    if ttl ~= -2 and not mine[i] then
        if ARGV[4] ~= '' then
            local waiters = companion('distlock_lock_waiters', key)
            redis.call('sadd', waiters, owner_client(ARGV[i + 4]))
            -- A waiter parks at most the holder's lease (1 s when it has none) before trying again.
            local keep = math.max(ttl, 1000) + (tonumber(ARGV[4]) or 0)
            if redis.call('pttl', waiters) < keep then
                redis.call('pexpire', waiters, keep)
            end
        end
        return {i, ttl}
    end
end
for i = 1, count do
    local key = KEYS[i]
    local field = ARGV[i + 4]
    local adopted = mine[i] and string.sub(ARGV[3], i, i) == '2'
    if not adopted then
        redis.call('hincrby', key, field, 1)
    end
    if mine[i] then
        extend_lease(key, ARGV[1])
    else
        redis.call('pexpire', key, ARGV[1])
    end
    if adopted or not mine[i] then
        record_grant(KEYS[count + i] or grant_record(key, field), ARGV[2], ARGV[1])
    end
end
return {}
