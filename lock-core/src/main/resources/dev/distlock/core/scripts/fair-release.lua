-- Releases one hold of a fair lock; on the last one, tells only the queue head, on its own channel.
-- KEYS[1] lock key
-- KEYS[2] queue
-- KEYS[3] deadlines
-- KEYS[4] waiter channel prefix
-- KEYS[5] unlock latch: of this request
-- ARGV[1] wake-up message
-- ARGV[2] lease in ms: kept while holds remain
-- ARGV[3] owner field
-- ARGV[4] latch lifetime in ms: how long the latch remembers the outcome (a retry of the request replays it)
-- ARGV[5] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
--! include announce
--! include unlock-latch
--! include server-clock
local replayed, previous = latch_replay(KEYS[5])
if replayed then
    return previous
end
local function release()
    local now = server_now()
    for _, dead in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
        redis.call('zrem', KEYS[3], dead)
        redis.call('lrem', KEYS[2], 0, dead)
    end

    local function wakeHead()
        local head = redis.call('lindex', KEYS[2], 0)
        if head then
            announce(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
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

return latch_record(KEYS[5], release(), ARGV[4])
