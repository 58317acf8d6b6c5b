package dev.distlock.core.internal.lock;

import java.util.concurrent.atomic.AtomicLong;

/** Hands out negative owner ids, which can never collide with thread ids. */
public final class OwnerIdSequence {

    private static final AtomicLong LAST = new AtomicLong();

    private OwnerIdSequence() {
    }

    /**
     * Returns the next id.
     * @return a negative id never returned before in this JVM
     */
    public static long next() {
        return LAST.decrementAndGet();
    }
}
