package dev.distlock.samples.contention;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Two plain counters incremented by read, pause, write: one under the {@code counter} lock, one
 * without. Only the read and write are atomic, not the increment, like a value kept in a database
 * or in Redis with GET and SET.
 */
@Component
public class Counter {

    private final AtomicLong locked = new AtomicLong();

    private final AtomicLong unlocked = new AtomicLong();

    private final Duration work;

    /**
     * Creates the counters.
     * @param work pause between read and write
     */
    public Counter(@Value("${samples.increment-time:2ms}") Duration work) {
        this.work = work;
    }

    /** Increments the locked counter. */
    @DistributedLock(name = "counter", waitTime = "60s")
    public void incrementLocked() {
        increment(locked);
    }

    /** Increments the unlocked counter. */
    public void incrementUnlocked() {
        increment(unlocked);
    }

    private void increment(AtomicLong counter) {
        long value = counter.get();
        Pause.of(work);
        counter.set(value + 1);
    }

    /**
     * Resets both counters.
     */
    public void reset() {
        locked.set(0);
        unlocked.set(0);
    }

    /**
     * Returns the locked counter.
     * @return its value
     */
    public long locked() {
        return locked.get();
    }

    /**
     * Returns the unlocked counter.
     * @return its value
     */
    public long unlocked() {
        return unlocked.get();
    }
}
