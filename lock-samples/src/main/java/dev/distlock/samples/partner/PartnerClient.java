package dev.distlock.samples.partner;

import dev.distlock.spring.DistributedSemaphore;
import java.time.Instant;
import org.springframework.stereotype.Service;

/**
 * Calls the partner API through one semaphore of {@link PartnerApi#LIMIT} permits,
 * {@code partner:partner-api}: every instance of the service shares it, so the partner never sees
 * more calls at once than it accepts, and a caller past the limit waits for a permit instead of being
 * refused. The name is given, not left to default to {@code PartnerClient.quote}, so that any other
 * method calling the partner can take permits of the same semaphore.
 */
@Service
public class PartnerClient {

    private final PartnerApi partner;

    PartnerClient(PartnerApi partner) {
        this.partner = partner;
    }

    /**
     * Asks the partner for a quote, holding one permit for the length of the call.
     * @param item what to quote
     * @return the quote
     */
    @DistributedSemaphore(name = "partner", key = "'partner-api'", permits = PartnerApi.LIMIT, waitTime = "30s")
    public Quote quote(String item) {
        Instant started = Instant.now();
        long cents = partner.quote(item);
        return new Quote(item, cents, Thread.currentThread().getName(), started, Instant.now());
    }

    /**
     * A quote and when the call to the partner ran.
     * @param item what was quoted
     * @param cents the price
     * @param thread the caller's thread
     * @param started when the permit was granted
     * @param finished when the partner answered
     */
    public record Quote(String item, long cents, String thread, Instant started, Instant finished) {}
}
