-- Publishes a release or wake-up. A release has already changed the lock when it announces it, and
-- Redis does not roll back a script's writes when a later command fails, so a failed PUBLISH (the
-- channel permission revoked, say) must not end the script: it would skip the unlock latch and make
-- the caller's retry report a lease loss for a lock it did release. Waiters still re-check when the
-- holder's lease would have ended. Returns the receivers, or -1 when the publish failed.
local function announce(publish, channel, message)
    local receivers = redis.pcall(publish, channel, message)
    if type(receivers) ~= 'number' then
        return -1
    end
    return receivers
end
