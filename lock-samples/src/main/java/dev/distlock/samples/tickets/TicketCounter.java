package dev.distlock.samples.tickets;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockType;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * One counter that serves one customer at a time, in the order they arrived: a fair lock grants
 * waiters in request order, where an ordinary lock lets whoever retries first barge in.
 */
@Service
public class TicketCounter {

    private final AtomicInteger nextNumber = new AtomicInteger(1);

    private final Duration work;

    /**
     * Creates the counter.
     * @param work simulated time to serve one customer
     */
    public TicketCounter(@Value("${samples.work-time:150ms}") Duration work) {
        this.work = work;
    }

    /**
     * Serves one customer.
     * @param customer who is served
     * @return the ticket
     */
    @DistributedLock(name = "ticket-counter", type = LockType.FAIR, waitTime = "30s")
    public Ticket serve(String customer) {
        int number = nextNumber.getAndIncrement();
        Pause.of(work);
        return new Ticket(number, customer, Instant.now());
    }

    /**
     * A served customer's ticket.
     * @param number ticket number, in serving order
     * @param customer who was served
     * @param servedAt when
     */
    public record Ticket(int number, String customer, Instant servedAt) {}
}
