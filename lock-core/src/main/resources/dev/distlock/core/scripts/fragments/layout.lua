-- Redisson's names for a lock's companion keys and channels, derived from the lock key here rather
-- than sent with every call; RedissonLayout gives the same names in Java. A companion is
-- prefix:{key}, or prefix:key when the key contains a brace (Redisson's prefixName and suffixName).
-- In a cluster the client only runs scripts on keys whose companions share the lock key's slot (it
-- stores other names under a key with a hash tag of its own), so the script runs on the node that
-- serves that slot. There the client also declares in KEYS every companion a script decides on or
-- writes (the scripts take the declared name when given): a live slot migration moves a lock's keys
-- in batches, and Redis holds a script back (ASK, then TRYAGAIN) only until its declared keys are on
-- one node, so an undeclared companion absent where the script runs may exist on the other node.
local function hash_tagged(key)
    if string.find(key, '{', 1, true) then
        return key
    end
    return '{' .. key .. '}'
end

local function companion(prefix, key)
    return prefix .. ':' .. hash_tagged(key)
end

-- The client id that starts an owner field (<client id>:<owner id>[:write]); client ids hold no colon.
local function owner_client(field)
    return string.match(field, '^[^:]*')
end

-- The unlock latch of a client's release request n: redisson_unlock_latch:{key}:<client id>:<n>.
local function unlock_latch(key, field, request)
    return companion('redisson_unlock_latch', key) .. ':' .. owner_client(field) .. ':' .. request
end

-- The command that announces on a lock's channels: SPUBLISH when the flags hold 's' (sharded
-- pub/sub in a cluster), else PUBLISH.
local function publisher(flags)
    if string.find(flags, 's', 1, true) then
        return 'spublish'
    end
    return 'publish'
end
