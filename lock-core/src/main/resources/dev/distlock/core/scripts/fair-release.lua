-- Releases one hold of a fair lock; on the last one, tells only the queue head, on its own channel.
-- KEYS[1] lock key, KEYS[2] queue, KEYS[3] deadlines, KEYS[4] waiter channel prefix, KEYS[5] unlock latch of this request
-- ARGV[1] wake-up message, ARGV[2] lease in ms to keep while holds remain, ARGV[3] owner field,
-- ARGV[4] how long the latch remembers the outcome, in ms (a retry of the request replays it)
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
if redis.replicate_commands then
    redis.replicate_commands()
end
local replay = redis.call('get', KEYS[5])
if replay then
    if replay == 'none' then
        return nil
    end
    return tonumber(replay)
end
local function release()
    local time = redis.call('time')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
        redis.call('zrem', KEYS[3], dead)
        redis.call('lrem', KEYS[2], 0, dead)
    end

    local function wakeHead()
        local head = redis.call('lindex', KEYS[2], 0)
        if head then
            redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1])
        end
    end

    if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
        if redis.call('exists', KEYS[1]) == 0 then
            -- The lock expired: the head may be parked until a release it would otherwise never see.
            wakeHead()
        end
        return nil
    end
    if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        return 0
    end
    redis.call('del', KEYS[1])
    wakeHead()
    return 1
end

local outcome = release()
if outcome == nil then
    outcome = 'none'
end
redis.call('set', KEYS[5], outcome, 'px', ARGV[4])
if outcome == 'none' then
    return nil
end
return outcome
