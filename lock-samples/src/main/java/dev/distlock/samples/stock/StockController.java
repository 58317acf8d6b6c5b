package dev.distlock.samples.stock;

import dev.distlock.samples.Concurrently;
import dev.distlock.samples.stock.StockService.Reservation;
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
 * Stock endpoints and the stock demo.
 */
@RestController
@RequestMapping("/api")
class StockController {

    private final StockService stock;

    StockController(StockService stock) {
        this.stock = stock;
    }

    @GetMapping("/stock/{sku}")
    Map<String, Object> available(@PathVariable String sku) {
        return Map.of("sku", sku, "available", stock.available(sku));
    }

    @PutMapping("/stock/{sku}")
    Map<String, Object> restock(@PathVariable String sku, @RequestParam int quantity) {
        stock.restock(sku, quantity);
        return available(sku);
    }

    @PostMapping("/stock/{sku}/reservations")
    Reservation reserve(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return stock.reserve(sku, quantity);
    }

    /** {@code buyers} buyers at once each try to reserve one of {@code units} units. */
    @PostMapping("/demo/stock")
    StockDemo demo(
            @RequestParam(defaultValue = "demo-sku") String sku,
            @RequestParam(defaultValue = "5") int units,
            @RequestParam(defaultValue = "10") int buyers) {
        stock.restock(sku, units);
        List<Reservation> reservations = Concurrently.run(buyers, i -> stock.reserve(sku, 1));
        long reserved = reservations.stream().filter(Reservation::reserved).count();
        return new StockDemo(sku, units, buyers, reserved, buyers - reserved, stock.available(sku));
    }

    record StockDemo(String sku, int units, int buyers, long reserved, long rejected, int remaining) {}
}
