-- The grant record of an owner: distlock_lock_grant:{key}:<owner field>, the id of the acquire
-- attempt that last took the lock afresh for that owner (or adopted such a take). An attempt whose
-- reply was lost may or may not have run; the clean-up after it must release a hold only if that
-- very attempt made it, never one a later attempt of the same owner was granted meanwhile (whose
-- caller was told it holds the lock). The record lives as long as the lease it was granted with:
-- a hold nobody knows of is never renewed, so by then it is gone too.
-- In a cluster the caller declares the record in KEYS (the scripts pass that name here): a live
-- slot migration may have moved the lock's hash without it, and a record absent where the script
-- runs would make a lost grant look like none.

local function grant_record(key, field)
    return companion('distlock_lock_grant', key) .. ':' .. field
end

local function record_grant(record, attempt, lease)
    redis.call('set', record, attempt, 'px', lease)
end

-- Returns whether the owner's grant was made by one of the lost attempts (space-separated ids),
-- forgetting the record when it was: one clean-up per lost grant.
local function take_lost_grant(record, lost)
    local granted_by = redis.call('get', record)
    if not granted_by then
        return false
    end
    for attempt in string.gmatch(lost, '%S+') do
        if attempt == granted_by then
            redis.call('del', record)
            return true
        end
    end
    return false
end
