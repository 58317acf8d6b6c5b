package dev.distlock.spring.internal.hold;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Graceful shutdown of the locks taken through the annotation and the template. Stopping (in the
 * first phase, with the task executors, long before the lock client is closed) refuses new
 * acquisitions, lets locked work finish while the watchdog keeps renewing its locks, then, when the
 * shutdown phase is almost over, reports what is still held as lost and releases it.
 */
public final class DistlockShutdown implements SmartLifecycle {

    private static final Logger logger = LoggerFactory.getLogger(DistlockShutdown.class);

    private final LockExecutor executor;
    private final Duration timeout;
    private volatile boolean running;

    /**
     * Creates the lifecycle.
     * @param executor the executor whose holds are drained
     * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}
     */
    public DistlockShutdown(LockExecutor executor, Duration phaseTimeout) {
        this.executor = executor;
        // Release before the phase times out: after that the context goes on and closes the client.
        Duration margin = phaseTimeout.dividedBy(10).compareTo(Duration.ofSeconds(1)) < 0
                ? phaseTimeout.dividedBy(10)
                : Duration.ofSeconds(1);
        this.timeout = phaseTimeout.minus(margin);
    }

    @Override
    public void start() {
        executor.endShutdown();
        running = true;
    }

    @Override
    public void stop() {
        executor.beginShutdown();
        drain();
    }

    @Override
    public void stop(Runnable callback) {
        executor.beginShutdown();
        Thread thread = new Thread(
                () -> {
                    try {
                        drain();
                    } finally {
                        callback.run();
                    }
                },
                "distlock-shutdown");
        thread.setDaemon(true);
        thread.start();
    }

    private void drain() {
        try {
            int left = executor.awaitReleased(timeout);
            if (left > 0) {
                logger.warn(
                        "{} lock(s) still held after {} (spring.lifecycle.timeout-per-shutdown-phase); "
                                + "releasing them and reporting them lost",
                        left,
                        timeout);
                executor.releaseRemaining();
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            executor.releaseRemaining();
        } finally {
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops with the first phase: together with the task executors, before the web server's phases. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }
}
