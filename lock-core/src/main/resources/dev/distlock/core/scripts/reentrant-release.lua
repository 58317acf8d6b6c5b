-- Releases one hold of a reentrant lock, at most once per request id.
-- KEYS[1] lock key, KEYS[2] unlock channel, KEYS[3] unlock latch of this request
-- ARGV[1] unlock message, ARGV[2] lease in ms to keep while holds remain, ARGV[3] owner field,
-- ARGV[4] how long the latch remembers the outcome, in ms
-- Returns nil when the owner holds nothing, 0 when holds remain, 1 when the lock was released.
-- A retry of the same request (its reply was lost) replays the first outcome instead of
-- releasing a second hold or failing because the first attempt already released the lock.
local replay = redis.call('get', KEYS[3])
if replay then
    if replay == 'none' then
        return nil
    end
    return tonumber(replay)
end
local outcome
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    outcome = 'none'
elseif redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    outcome = 0
else
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], ARGV[1])
    outcome = 1
end
redis.call('set', KEYS[3], outcome, 'px', ARGV[4])
if outcome == 'none' then
    return nil
end
return outcome
