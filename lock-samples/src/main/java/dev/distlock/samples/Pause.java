package dev.distlock.samples;

import java.time.Duration;

/**
 * Simulated work inside the demos, long enough to make a held lock visible on the page.
 */
public final class Pause {

    private Pause() {}

    /**
     * Sleeps, keeping the interrupt flag if interrupted.
     * @param duration how long
     */
    public static void of(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while working", ex);
        }
    }
}
