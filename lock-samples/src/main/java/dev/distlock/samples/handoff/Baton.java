package dev.distlock.samples.handoff;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * The locks of the hand-off demo: {@code baton}, taken in turns by patient and impatient workers,
 * and {@code baton-overrun}, whose fixed lease runs out while its holder still works.
 */
@Component
public class Baton {

    /** Name of the exclusive lock the workers pass around. */
    public static final String LOCK = "baton";

    /** Name of the lock whose lease is lost. */
    public static final String OVERRUN_LOCK = "baton-overrun";

    /**
     * Holds the baton, waiting as long as it takes.
     * @param work how long to hold it
     */
    @DistributedLock(name = LOCK, waitTime = "60s")
    public void hold(Duration work) {
        Pause.of(work);
    }

    /**
     * Holds the baton if it can be had within a short wait; throws
     * {@link dev.distlock.spring.LockAcquisitionException} otherwise.
     * @param work how long to hold it
     */
    @DistributedLock(name = LOCK, waitTime = "100ms")
    public void holdIfQuick(Duration work) {
        Pause.of(work);
    }

    /**
     * Holds the overrun lock with a 300 ms lease for longer than that: the lease is lost.
     * @param work how long to work, longer than the lease
     */
    @DistributedLock(name = OVERRUN_LOCK, waitTime = "5s", leaseTime = "300ms")
    public void overrun(Duration work) {
        Pause.of(work);
    }
}
