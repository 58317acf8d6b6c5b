package dev.distlock.samples.prices;

import dev.distlock.samples.Concurrently;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Price endpoints and the readers-and-writer demo.
 */
@RestController
@RequestMapping("/api")
class PriceController {

    private final PriceCatalogue catalogue;

    PriceController(PriceCatalogue catalogue) {
        this.catalogue = catalogue;
    }

    @GetMapping("/prices/{sku}")
    Map<String, Object> price(@PathVariable String sku) {
        return Map.of("sku", sku, "price", catalogue.price(sku));
    }

    @PutMapping("/prices/{sku}")
    Map<String, Object> update(@PathVariable String sku, @RequestParam BigDecimal price) {
        return Map.of("sku", sku, "price", catalogue.update(sku, price));
    }

    /** {@code readers} readers read at once, then a writer updates while more readers arrive. */
    @PostMapping("/demo/prices")
    PriceDemo demo(@RequestParam(defaultValue = "8") int readers) {
        catalogue.takeStats();
        int writer = readers / 2;
        List<BigDecimal> seen = Concurrently.run(
                readers + 1,
                i -> i == writer
                        ? catalogue.update("apple", new BigDecimal("0.5" + (System.nanoTime() % 10)))
                        : catalogue.price("apple"));
        int[] stats = catalogue.takeStats();
        return new PriceDemo(readers, 1, stats[0], stats[1], seen);
    }

    record PriceDemo(
            int readers,
            int writers,
            int mostConcurrentReaders,
            int readersRunningDuringWrite,
            List<BigDecimal> pricesSeen) {}
}
