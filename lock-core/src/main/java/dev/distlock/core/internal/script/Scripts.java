package dev.distlock.core.internal.script;

import io.lettuce.core.ScriptOutputType;
import java.util.List;

/** Every Lua script Distlock runs, each read from its resource once per JVM. */
public final class Scripts {

    /** Reentrant (and fenced) lock acquisition. */
    public static final LuaScript REENTRANT_ACQUIRE = LuaScript.load("reentrant-acquire", ScriptOutputType.INTEGER);

    /** Fenced lock acquisition: reentrant acquire plus the token counter. */
    public static final LuaScript FENCED_ACQUIRE = LuaScript.load("fenced-acquire", ScriptOutputType.MULTI);

    /** Reentrant lock release. */
    public static final LuaScript REENTRANT_RELEASE = LuaScript.load("reentrant-release", ScriptOutputType.INTEGER);

    /** Hands a targeted wake-up on to another waiting client. */
    public static final LuaScript REENTRANT_PASS_WAKEUP =
            LuaScript.load("reentrant-pass-wakeup", ScriptOutputType.INTEGER);

    /** Batched lease renewal of hash-based holds. */
    public static final LuaScript RENEW = LuaScript.load("renew", ScriptOutputType.MULTI);

    /** Owner-blind delete and wake-up. */
    public static final LuaScript FORCE_RELEASE = LuaScript.load("force-release", ScriptOutputType.INTEGER);

    /** Fair lock acquisition: take, re-enter, or queue the caller with a liveness deadline. */
    public static final LuaScript FAIR_ACQUIRE = LuaScript.load("fair-acquire", ScriptOutputType.INTEGER);

    /** Fair lock release, telling only the queue head. */
    public static final LuaScript FAIR_RELEASE = LuaScript.load("fair-release", ScriptOutputType.INTEGER);

    /** Removal of a fair lock waiter that gave up. */
    public static final LuaScript FAIR_ABANDON = LuaScript.load("fair-abandon", ScriptOutputType.INTEGER);

    /** Owner-blind delete of a fair lock, telling the queue head. */
    public static final LuaScript FAIR_FORCE_RELEASE = LuaScript.load("fair-force-release", ScriptOutputType.INTEGER);

    /** Read-write lock: read side acquisition. */
    public static final LuaScript RW_READ_ACQUIRE = LuaScript.load("rw-read-acquire", ScriptOutputType.INTEGER);

    /** Read-write lock: release of one read hold. */
    public static final LuaScript RW_READ_RELEASE = LuaScript.load("rw-read-release", ScriptOutputType.INTEGER);

    /** Read-write lock: batched renewal of read holds and their timeout keys. */
    public static final LuaScript RW_READ_RENEW = LuaScript.load("rw-read-renew", ScriptOutputType.MULTI);

    /** Read-write lock: write side acquisition. */
    public static final LuaScript RW_WRITE_ACQUIRE = LuaScript.load("rw-write-acquire", ScriptOutputType.INTEGER);

    /** Read-write lock: release of one write hold (downgrading to read holds if any). */
    public static final LuaScript RW_WRITE_RELEASE = LuaScript.load("rw-write-release", ScriptOutputType.INTEGER);

    /** Read-write lock: batched renewal of write holds. */
    public static final LuaScript RW_WRITE_RENEW = LuaScript.load("rw-write-renew", ScriptOutputType.MULTI);

    /** Read-write lock: withdrawal of a waiting writer's claim. */
    public static final LuaScript RW_WRITE_ABANDON = LuaScript.load("rw-write-abandon", ScriptOutputType.INTEGER);

    /** Read-write lock: owner-blind delete in one mode. */
    public static final LuaScript RW_FORCE_RELEASE = LuaScript.load("rw-force-release", ScriptOutputType.INTEGER);

    /** Multi lock: every member on one server (one cluster slot) taken at once, or none. */
    public static final LuaScript MULTI_ACQUIRE = LuaScript.load("multi-acquire", ScriptOutputType.MULTI);

    /** Multi lock: one hold of every member on one server (one cluster slot) released at once. */
    public static final LuaScript MULTI_RELEASE = LuaScript.load("multi-release", ScriptOutputType.MULTI);

    /** Semaphore: one permit taken, after giving back those whose lease ended. */
    public static final LuaScript SEMAPHORE_ACQUIRE = LuaScript.load("semaphore-acquire", ScriptOutputType.MULTI);

    /** Semaphore: one permit given back by its id. */
    public static final LuaScript SEMAPHORE_RELEASE = LuaScript.load("semaphore-release", ScriptOutputType.INTEGER);

    /** Semaphore: permits set when none are set yet. */
    public static final LuaScript SEMAPHORE_SET_PERMITS =
            LuaScript.load("semaphore-set-permits", ScriptOutputType.INTEGER);

    /** Semaphore: available permits counted, after giving back those whose lease ended. */
    public static final LuaScript SEMAPHORE_AVAILABLE = LuaScript.load("semaphore-available", ScriptOutputType.INTEGER);

    /** Semaphore: batched renewal of one semaphore's watchdog permits. */
    public static final LuaScript SEMAPHORE_RENEW = LuaScript.load("semaphore-renew", ScriptOutputType.MULTI);

    /** Semaphore: the permits taken now, with the lease each has left (read only). */
    public static final LuaScript SEMAPHORE_TAKEN = LuaScript.load("semaphore-taken", ScriptOutputType.MULTI);

    private Scripts() {}

    /**
     * Returns every script, for tests that check they all load on a real server.
     * @return all scripts
     */
    public static List<LuaScript> all() {
        return List.of(
                REENTRANT_ACQUIRE,
                FENCED_ACQUIRE,
                REENTRANT_RELEASE,
                REENTRANT_PASS_WAKEUP,
                RENEW,
                FORCE_RELEASE,
                FAIR_ACQUIRE,
                FAIR_RELEASE,
                FAIR_ABANDON,
                FAIR_FORCE_RELEASE,
                RW_READ_ACQUIRE,
                RW_READ_RELEASE,
                RW_READ_RENEW,
                RW_WRITE_ACQUIRE,
                RW_WRITE_RELEASE,
                RW_WRITE_RENEW,
                RW_WRITE_ABANDON,
                RW_FORCE_RELEASE,
                MULTI_ACQUIRE,
                MULTI_RELEASE,
                SEMAPHORE_ACQUIRE,
                SEMAPHORE_RELEASE,
                SEMAPHORE_SET_PERMITS,
                SEMAPHORE_AVAILABLE,
                SEMAPHORE_RENEW,
                SEMAPHORE_TAKEN);
    }
}
