package dev.distlock.core;

/** Tells how many of a client's waiters are parked waiting for a wake-up, so tests release only then. */
public final class Parked {

    private Parked() {}

    /**
     * Returns the number of the client's acquisitions parked between attempts, subscribed to
     * their wake-up channel, or waiting in a lock's local line for their turn.
     * @param client the client
     * @return parked waiters
     */
    public static int waiters(LockClient client) {
        return client.engine().parkedWaiters();
    }
}
