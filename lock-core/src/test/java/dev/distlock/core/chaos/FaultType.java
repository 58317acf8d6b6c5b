package dev.distlock.core.chaos;

/** The faults the {@link Nemesis} can inject, each with the time clients need after it heals. */
enum FaultType {
    /** SIGSTOP of a Redis node, SIGCONT after up to 3-4 s. */
    REDIS_PAUSE(3000),
    /** SIGSTOP of a client JVM, SIGCONT after up to 6 s (beyond the watchdog timeout). */
    JVM_PAUSE(3000),
    /** {@code CLIENT KILL} of a client JVM's command connections. */
    KILL_COMMAND(5000),
    /**
     * For 8-30 s, every 30-180 ms, {@code CLIENT KILL} of every client JVM's command (not pub/sub)
     * connections on a data node: calls in flight lose their replies, and callers retry at once.
     */
    KILL_STORM(5000),
    /** {@code CLIENT KILL} of a client JVM's pub/sub connection. */
    KILL_PUBSUB(5000),
    /** {@code CLIENT PAUSE} (writes or all) on a node. */
    CLIENT_PAUSE(3000),
    /** {@code ACL SETUSER default -evalsha -eval}, restored after a while. */
    ACL_SCRIPTS(5000),
    /** {@code ACL SETUSER default resetchannels}, restored with {@code allchannels}. */
    ACL_CHANNELS(5000),
    /** Restart of a Redis node (its data is lost). */
    RESTART(10_000),
    /**
     * A Redis node stopped for 1-3 s with calls in flight, then started again on the same port (its
     * data is lost): calls made meanwhile wait for the reconnect within their deadline.
     */
    OUTAGE(10_000),
    /**
     * Sentinel: {@code SENTINEL FAILOVER}, or a crash of the master that the sentinels answer by
     * promoting the replica. Cluster: a crash of the master serving a lock's slot (mostly one that
     * callers wait in line for), its replica promoted by the cluster or by {@code CLUSTER FAILOVER
     * FORCE}. A crashed master stays down 15-25 s, then {@link #REJOIN}s.
     */
    FAILOVER(15_000),
    /** The master a failover crashed, started again and replicating the promoted one. */
    REJOIN(5000),
    /** A lock's slot migrated, keys and all, to another master. */
    SLOT_MIGRATION(8000);

    private final long graceMillis;

    FaultType(long graceMillis) {
        this.graceMillis = graceMillis;
    }

    long graceMillis() {
        return graceMillis;
    }
}
