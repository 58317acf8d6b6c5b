package dev.distlock.samples.export;

import dev.distlock.samples.Pause;
import dev.distlock.spring.DistributedLock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Exports a customer's data in the background. The method returns at once with a
 * {@link CompletableFuture}; the {@code export:<customer>} lock is held until the future completes,
 * so two exports of one customer never overlap, even though the caller's thread is long gone.
 */
@Service
public class ExportService implements DisposableBean {

    private final ExecutorService workers = Executors.newFixedThreadPool(4);

    private final Duration work;

    /**
     * Creates the service.
     * @param work simulated time of one export
     */
    public ExportService(@Value("${samples.export-time:500ms}") Duration work) {
        this.work = work;
    }

    /**
     * Starts an export.
     * @param customer whose data
     * @return the export, once done
     */
    @DistributedLock(name = "export", key = "#customer", waitTime = "30s")
    public CompletableFuture<Export> export(String customer) {
        Instant started = Instant.now();
        return CompletableFuture.supplyAsync(
                () -> {
                    Pause.of(work);
                    return new Export(customer, Thread.currentThread().getName(), started, Instant.now());
                },
                workers);
    }

    @Override
    public void destroy() {
        workers.shutdownNow();
    }

    /**
     * A finished export.
     * @param customer whose data
     * @param thread the worker thread that ran it
     * @param started when the lock was granted
     * @param finished when it finished
     */
    public record Export(String customer, String thread, Instant started, Instant finished) {}
}
