package dev.distlock.core.internal.script;

import java.util.List;

import io.lettuce.core.ScriptOutputType;

/** Every Lua script Distlock runs, each read from its resource once per JVM. */
public final class Scripts {

    /** Reentrant (and fenced) lock acquisition. */
    public static final LuaScript REENTRANT_ACQUIRE = LuaScript.load("reentrant-acquire", ScriptOutputType.INTEGER);

    /** Fenced lock acquisition: reentrant acquire plus the token counter. */
    public static final LuaScript FENCED_ACQUIRE = LuaScript.load("fenced-acquire", ScriptOutputType.MULTI);

    /** Reentrant lock release. */
    public static final LuaScript REENTRANT_RELEASE = LuaScript.load("reentrant-release", ScriptOutputType.INTEGER);

    /** Batched lease renewal of hash-based holds. */
    public static final LuaScript RENEW = LuaScript.load("renew", ScriptOutputType.MULTI);

    /** Owner-blind delete and wake-up. */
    public static final LuaScript FORCE_RELEASE = LuaScript.load("force-release", ScriptOutputType.INTEGER);

    private Scripts() {
    }

    /**
     * Returns every script, for tests that check they all load on a real server.
     * @return all scripts
     */
    public static List<LuaScript> all() {
        return List.of(REENTRANT_ACQUIRE, FENCED_ACQUIRE, REENTRANT_RELEASE, RENEW, FORCE_RELEASE);
    }
}
