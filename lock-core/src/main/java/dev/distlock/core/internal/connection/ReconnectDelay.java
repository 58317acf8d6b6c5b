package dev.distlock.core.internal.connection;

import io.lettuce.core.resource.Delay;
import java.time.Duration;

/**
 * The client's reconnect back-off: the first attempt waits {@code min}, each further one twice as
 * long as the one before, at most {@code max}. Lettuce's default starts at 1 ms but doubles up to
 * 30 s, so a server that was down for a few seconds is reconnected only seconds after it is back,
 * and every call made meanwhile has to wait for that.
 */
final class ReconnectDelay extends Delay {

    private final Duration min;
    private final Duration max;

    ReconnectDelay(Duration min, Duration max) {
        this.min = min;
        this.max = max;
    }

    @Override
    public Duration createDelay(long attempt) {
        // Doubling min more than 62 times overflows long nanos; the cap is reached long before.
        long doublings = Math.min(Math.max(0, attempt - 1), 62);
        long nanos = min.toNanos();
        for (long i = 0; i < doublings && nanos < max.toNanos(); i++) {
            nanos *= 2;
        }
        return Duration.ofNanos(Math.min(nanos, max.toNanos()));
    }
}
