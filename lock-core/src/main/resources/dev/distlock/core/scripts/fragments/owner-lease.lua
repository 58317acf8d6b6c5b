-- The TTL of a lock an owner may hold more than once (several tasks sharing one owner id). Each
-- grant keeps its own lease: a re-entry never shortens what the owner's other holds were granted,
-- and an unlock, which does not say which of the owner's holds it ends, keeps at least what the
-- key has left. Only the give-back of one known grant (a cancelled or lost acquisition) sets the
-- lease its caller computed for the holds that remain.

-- A re-entry: the key keeps whichever is longer, what it has left or the new lease.
local function extend_lease(key, lease)
    redis.call('pexpire', key, math.max(redis.call('pttl', key), tonumber(lease)))
end

-- Holds remain after a release. lease < 0: an unlock, which keeps at least -lease and never
-- shortens the key; lease > 0: a give-back, which sets it. floor: a minimum in ms (0 for none).
local function keep_lease(key, lease, floor)
    local wanted = tonumber(lease)
    if wanted < 0 then
        wanted = math.max(redis.call('pttl', key), -wanted)
    end
    redis.call('pexpire', key, math.max(wanted, floor))
end
