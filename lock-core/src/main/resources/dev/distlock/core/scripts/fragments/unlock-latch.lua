-- The unlock latch of one release request: a short-lived key beside the lock. A release whose
-- reply was lost is retried with the same request id and must replay its first outcome instead
-- of releasing a second hold or failing because the first attempt already released the lock.

-- Returns whether the request already ran, and its outcome then (nil for "held nothing").
local function latch_replay(latch)
    local recorded = redis.call('get', latch)
    if not recorded then
        return false, nil
    end
    if recorded == 'none' then
        return true, nil
    end
    return true, tonumber(recorded)
end

-- Records a release's outcome (nil, 0 or 1) for ttl ms, and returns it.
local function latch_record(latch, outcome, ttl)
    redis.call('set', latch, outcome == nil and 'none' or outcome, 'px', ttl)
    return outcome
end
