package dev.distlock.samples.export;

import dev.distlock.samples.Concurrently;
import dev.distlock.samples.export.ExportService.Export;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Export endpoints and the same-customer demo.
 */
@RestController
@RequestMapping("/api")
class ExportController {

    private final ExportService exports;

    ExportController(ExportService exports) {
        this.exports = exports;
    }

    /** Answered asynchronously by Spring MVC when the future completes. */
    @PostMapping("/exports/{customer}")
    CompletableFuture<Export> export(@PathVariable String customer) {
        return exports.export(customer);
    }

    /** {@code requests} exports of one customer are requested at once; they run one after another. */
    @PostMapping("/demo/exports")
    ExportDemo demo(@RequestParam(defaultValue = "3") int requests) {
        List<Export> done = Concurrently.run(requests, i -> exports.export("acme")).stream()
                .map(CompletableFuture::join)
                .sorted(Comparator.comparing(Export::started))
                .toList();
        boolean overlapped = false;
        for (int i = 1; i < done.size(); i++) {
            overlapped |= done.get(i).started().isBefore(done.get(i - 1).finished());
        }
        return new ExportDemo(requests, done, overlapped);
    }

    record ExportDemo(int requests, List<Export> exports, boolean overlapped) {}
}
