package dev.distlock.samples.partner;

import dev.distlock.samples.Pause;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Stands in for a partner's HTTP API that answers slowly and accepts at most {@link #LIMIT} calls at
 * once per account: a call beyond that is refused, as a {@code 429 Too Many Requests} would be. It
 * counts the calls in flight and the most it has seen, so that the demo can show the throttle held.
 */
@Component
public class PartnerApi {

    /** Calls the partner accepts at once. */
    public static final int LIMIT = 3;

    private final Duration latency;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    /**
     * Creates the stand-in.
     * @param latency how long the partner takes to answer
     */
    public PartnerApi(@Value("${samples.partner-time:300ms}") Duration latency) {
        this.latency = latency;
    }

    /**
     * Asks the partner for a quote.
     * @param item what to quote
     * @return the price, in cents
     * @throws TooManyRequestsException when more than {@link #LIMIT} calls are in flight
     */
    public long quote(String item) {
        int now = inFlight.incrementAndGet();
        try {
            mostInFlight.accumulateAndGet(now, Math::max);
            if (now > LIMIT) {
                refused.incrementAndGet();
                throw new TooManyRequestsException(now);
            }
            Pause.of(latency);
            return 1_000L + Math.floorMod(item.hashCode(), 9_000);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /**
     * Returns the calls seen since the last reset.
     * @return the most calls in flight at once and the calls refused
     */
    public Load load() {
        return new Load(mostInFlight.get(), refused.get());
    }

    /** Forgets the calls seen so far, before a demo. */
    public void reset() {
        mostInFlight.set(0);
        refused.set(0);
    }

    /**
     * What the partner saw.
     * @param mostInFlight most calls in flight at once
     * @param refused calls refused for being over the limit
     */
    public record Load(int mostInFlight, int refused) {}

    /** The partner refused a call: too many were in flight. */
    public static class TooManyRequestsException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        TooManyRequestsException(int inFlight) {
            super("Partner API: " + inFlight + " calls in flight, at most " + LIMIT + " accepted");
        }
    }
}
