package dev.distlock.samples.prices;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockType;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * A price catalogue read often and updated rarely: readers share the read side of the
 * {@code prices} read-write lock and run together, an update takes the write side and runs alone.
 */
@Service
public class PriceCatalogue {

    private final Map<String, BigDecimal> prices = new ConcurrentHashMap<>(Map.of("apple", new BigDecimal("0.50")));

    private final AtomicInteger readers = new AtomicInteger();

    private final AtomicInteger maxReaders = new AtomicInteger();

    private final AtomicInteger readersSeenByWriter = new AtomicInteger();

    private final Duration work;

    /**
     * Creates the catalogue.
     * @param work simulated time of one read or update
     */
    public PriceCatalogue(@Value("${samples.work-time:150ms}") Duration work) {
        this.work = work;
    }

    /**
     * Reads a price.
     * @param sku the SKU
     * @return the price, zero when unknown
     */
    @DistributedLock(name = "prices", type = LockType.READ, waitTime = "10s")
    public BigDecimal price(String sku) {
        maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
        try {
            Pause.of(work);
            return prices.getOrDefault(sku, BigDecimal.ZERO);
        } finally {
            readers.decrementAndGet();
        }
    }

    /**
     * Updates a price.
     * @param sku the SKU
     * @param price the new price
     * @return the new price
     */
    @DistributedLock(name = "prices", type = LockType.WRITE, waitTime = "10s")
    public BigDecimal update(String sku, BigDecimal price) {
        readersSeenByWriter.accumulateAndGet(readers.get(), Math::max);
        Pause.of(work);
        readersSeenByWriter.accumulateAndGet(readers.get(), Math::max);
        prices.put(sku, price);
        return price;
    }

    /**
     * Returns and resets what the demo measures.
     * @return most readers seen at once, most readers a writer saw
     */
    public int[] takeStats() {
        return new int[] {maxReaders.getAndSet(0), readersSeenByWriter.getAndSet(0)};
    }
}
