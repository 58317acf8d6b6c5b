-- Withdraws the claim of a writer that gave up; when no writer is left waiting, readers that the
-- claim kept out are woken.
-- KEYS[1] lock key
-- KEYS[2] waiting writers
-- KEYS[3] read-write channel
-- ARGV[1] wake-all message
-- ARGV[2] writer field
-- ARGV[3] publish command: PUBLISH, or SPUBLISH for sharded pub/sub
-- Returns 1 when a claim was withdrawn, else 0.
--! include announce
if redis.call('zrem', KEYS[2], ARGV[2]) == 0 then
    return 0
end
if redis.call('zcard', KEYS[2]) == 0 and redis.call('hget', KEYS[1], 'mode') ~= 'write' then
    announce(ARGV[3], KEYS[3], ARGV[1])
end
return 1
