package dev.distlock.samples.stock;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Reserves stock per SKU. Reservations of one SKU run one at a time, on every instance, while
 * different SKUs never wait for each other: the lock is {@code stock:<sku>}.
 *
 * <p>The stock lives in memory to keep the sample small; a real service keeps it in a database that
 * every instance shares, which is what makes a distributed lock necessary.
 */
@Service
public class StockService {

    private final Map<String, Integer> stock = new ConcurrentHashMap<>();

    private final Duration work;

    /**
     * Creates the service.
     * @param work simulated time between reading and writing the stock level
     */
    public StockService(@Value("${samples.work-time:150ms}") Duration work) {
        this.work = work;
    }

    /**
     * Sets the stock level of a SKU.
     * @param sku the SKU
     * @param quantity units in stock
     */
    public void restock(String sku, int quantity) {
        stock.put(sku, quantity);
    }

    /**
     * Returns the stock level of a SKU.
     * @param sku the SKU
     * @return units in stock
     */
    public int available(String sku) {
        return stock.getOrDefault(sku, 0);
    }

    /**
     * Reserves units of a SKU if enough are in stock. Check-then-act: without the lock two buyers
     * could both see the last unit and both get it.
     * @param sku the SKU
     * @param quantity units wanted
     * @return the outcome
     */
    @DistributedLock(name = "stock", key = "#sku", waitTime = "10s")
    public Reservation reserve(String sku, int quantity) {
        int available = available(sku);
        Pause.of(work);
        if (available < quantity) {
            return new Reservation(sku, quantity, false, available);
        }
        stock.put(sku, available - quantity);
        return new Reservation(sku, quantity, true, available - quantity);
    }

    /**
     * Outcome of a reservation.
     * @param sku the SKU
     * @param quantity units asked for
     * @param reserved whether they were reserved
     * @param remaining units left in stock
     */
    public record Reservation(String sku, int quantity, boolean reserved, int remaining) {}
}
