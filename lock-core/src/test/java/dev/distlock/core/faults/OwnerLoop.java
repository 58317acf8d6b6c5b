package dev.distlock.core.faults;

import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One owner taking a lock now and then on a thread of its own, as a busy caller does: a no-wait
 * {@code tryLock}, a short hold, an unlock, a pause. Failed calls (a client following a new master,
 * a hold that lapsed) are part of the pattern and do not stop it.
 */
final class OwnerLoop implements AutoCloseable {

    private final AtomicInteger taken = new AtomicInteger();
    private final Thread thread;

    /**
     * Starts the loop.
     * @param lock the lock
     * @param owner the owner
     * @param leaseMillis the lease of each hold
     * @param pauseMillis the pause after each try
     */
    OwnerLoop(RedisLock lock, long owner, long leaseMillis, long pauseMillis) {
        thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            if (lock.tryLock(0, leaseMillis, TimeUnit.MILLISECONDS, owner)) {
                                taken.incrementAndGet();
                                Thread.sleep(100);
                                lock.unlock(owner);
                            }
                            Thread.sleep(pauseMillis);
                        } catch (InterruptedException ex) {
                            return;
                        } catch (LockException | IllegalMonitorStateException ex) {
                            // go on, as the caller would
                        }
                    }
                },
                "owner-loop");
        thread.start();
    }

    /** @return how many times the owner took the lock so far */
    int taken() {
        return taken.get();
    }

    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join(5000);
    }
}
