package dev.distlock.samples.partner;

import dev.distlock.samples.Concurrently;
import dev.distlock.samples.partner.PartnerClient.Quote;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Quote endpoint and the throttle demo: many callers at once, at most {@link PartnerApi#LIMIT} calls
 * reach the partner together.
 */
@RestController
@RequestMapping("/api")
class PartnerController {

    private final PartnerClient client;

    private final PartnerApi partner;

    PartnerController(PartnerClient client, PartnerApi partner) {
        this.client = client;
        this.partner = partner;
    }

    @GetMapping("/partner/quotes/{item}")
    Quote quote(@PathVariable String item) {
        return client.quote(item);
    }

    /** {@code callers} ask for a quote at once; the semaphore lets {@link PartnerApi#LIMIT} through at a time. */
    @PostMapping("/demo/partner")
    PartnerDemo demo(@RequestParam(defaultValue = "10") int callers) {
        partner.reset();
        List<Quote> quotes = Concurrently.run(callers, i -> {
            Thread.currentThread().setName("caller-" + (i + 1));
            return client.quote("item-" + (i + 1));
        });
        PartnerApi.Load load = partner.load();
        return new PartnerDemo(callers, PartnerApi.LIMIT, quotes.size(), load.mostInFlight(), load.refused());
    }

    /**
     * The demo's outcome.
     * @param callers callers at once
     * @param permits the semaphore's permits, the partner's limit
     * @param answered calls the partner answered
     * @param mostAtOnce most calls the partner saw in flight together
     * @param refused calls the partner refused
     */
    record PartnerDemo(int callers, int permits, int answered, int mostAtOnce, int refused) {}
}
