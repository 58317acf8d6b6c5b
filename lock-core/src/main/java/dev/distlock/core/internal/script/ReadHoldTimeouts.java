package dev.distlock.core.internal.script;

import java.util.List;

/**
 * The read hold timeout keys a read-write lock script is called with ({@code KEYS[n...]}), after
 * its fixed keys. A script decides on such a key only when it was declared: in a cluster, Redis
 * refuses to run a script while a live slot migration has its declared keys on different nodes
 * ({@code ASK}, then {@code TRYAGAIN}), but a key read without being declared may be on the other
 * node, absent here though alive. A script that would need an undeclared one replies
 * {@link #UNDECLARED} without granting or giving up a hold, and the caller reads the lock's readers
 * and calls again.
 */
public final class ReadHoldTimeouts {

    /** Reply of a script that would have to decide on a read hold timeout key it was not given. */
    public static final long UNDECLARED = -4;

    private ReadHoldTimeouts() {}

    /**
     * Returns a script's KEYS: its fixed keys, then the read hold timeouts.
     * @param timeouts the read hold timeout keys
     * @param fixed the script's fixed keys, in order
     * @return the KEYS array
     */
    static String[] keys(List<String> timeouts, String... fixed) {
        String[] keys = new String[fixed.length + timeouts.size()];
        System.arraycopy(fixed, 0, keys, 0, fixed.length);
        for (int i = 0; i < timeouts.size(); i++) {
            keys[fixed.length + i] = timeouts.get(i);
        }
        return keys;
    }
}
