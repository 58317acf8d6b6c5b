-- Wakes one Distlock client listed as having a parked waiter, on that client's own channel; a
-- listed client nobody listens for any more (it died or left) is unlisted and the next one tried.
-- Broadcasts on the shared channel, which also wakes Redisson's waiters, when no listed client
-- listens or targeting is off (prefix '').
-- waiters: set of listed client ids; prefix: per-client channel prefix; channel: shared channel;
-- publish: the broadcast's command (SPUBLISH where Redisson's waiters listen on sharded channels).
-- Targeting is off in a cluster, so the per-client channels always use plain PUBLISH.
-- Needs the announce fragment included before it.
local function wake_one_client(waiters, prefix, channel, message, publish)
    local woken = 0
    if prefix ~= '' then
        while woken == 0 do
            local client = redis.call('srandmember', waiters)
            if not client then
                break
            end
            woken = announce('publish', prefix .. client, message)
            if woken < 0 then
                -- Publishing is refused: unlisting clients would not help, and the broadcast fails too.
                return
            end
            if woken == 0 then
                redis.call('srem', waiters, client)
            end
        end
    end
    if woken == 0 then
        announce(publish, channel, message)
    end
end
