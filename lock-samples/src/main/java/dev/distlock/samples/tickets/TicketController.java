package dev.distlock.samples.tickets;

import dev.distlock.samples.Concurrently;
import dev.distlock.samples.tickets.TicketCounter.Ticket;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Ticket endpoints and the arrival-order demo.
 */
@RestController
@RequestMapping("/api")
class TicketController {

    private final TicketCounter counter;

    TicketController(TicketCounter counter) {
        this.counter = counter;
    }

    @PostMapping("/tickets")
    Ticket serve(@RequestParam String customer) {
        return counter.serve(customer);
    }

    /** Customers arrive {@code gapMillis} apart while the counter is busy; they are served in arrival order. */
    @PostMapping("/demo/tickets")
    TicketDemo demo(
            @RequestParam(defaultValue = "6") int customers, @RequestParam(defaultValue = "100") long gapMillis) {
        List<Ticket> tickets =
                Concurrently.run(customers, Duration.ofMillis(gapMillis), i -> counter.serve("customer-" + (i + 1)));
        List<String> servedOrder = tickets.stream()
                .sorted(Comparator.comparingInt(Ticket::number))
                .map(Ticket::customer)
                .toList();
        List<String> arrivalOrder = tickets.stream().map(Ticket::customer).toList();
        return new TicketDemo(arrivalOrder, servedOrder, arrivalOrder.equals(servedOrder));
    }

    record TicketDemo(List<String> arrivalOrder, List<String> servedOrder, boolean servedInArrivalOrder) {}
}
