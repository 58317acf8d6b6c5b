-- Lists the permits of a semaphore taken now, for diagnostics: read only, it gives nothing back.
-- KEYS[1] timeout key: taken permit ids scored by expiry
-- Returns a flat list, soonest expiry first: for each permit whose lease has not ended, its id as hex
-- text (the bytes are stored, as Redisson stores them) and the ms its lease has left on the server's
-- clock.
--! include server-clock
local now = server_now()
local taken = redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf', 'withscores')
local reply = {}
for i = 1, #taken, 2 do
    local hex = string.gsub(taken[i], '.', function(c) return string.format('%02x', string.byte(c)) end)
    reply[#reply + 1] = hex
    reply[#reply + 1] = tonumber(taken[i + 1]) - now
end
return reply
