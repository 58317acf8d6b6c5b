package dev.distlock.core;

import java.util.concurrent.atomic.AtomicLong;

/** Hands out negative owner ids, which can never collide with thread ids. */
final class OwnerIdSequence {

    private static final AtomicLong LAST = new AtomicLong();

    private OwnerIdSequence() {}

    /**
     * Returns the next id.
     * @return a negative id never returned before in this JVM
     */
    static long next() {
        return LAST.decrementAndGet();
    }
}
