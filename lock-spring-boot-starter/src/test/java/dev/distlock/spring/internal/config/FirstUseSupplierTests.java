package dev.distlock.spring.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FirstUseSupplierTests {

    @Test
    void whenResolvedThenTheValueIsKept() {
        AtomicInteger calls = new AtomicInteger();
        FirstUseSupplier<String> supplier = FirstUseSupplier.of(() -> "value-" + calls.incrementAndGet());
        assertThat(calls).hasValue(0);
        assertThat(supplier.get()).isEqualTo("value-1");
        assertThat(supplier.get()).isEqualTo("value-1");
        assertThat(calls).hasValue(1);
    }

    @Test
    void whenAFirstCallIsStillResolvingThenAnotherCallerDoesNotWait() throws Exception {
        CountDownLatch firstEntered = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        FirstUseSupplier<String> supplier = FirstUseSupplier.of(() -> {
            if (calls.incrementAndGet() == 1) {
                firstEntered.countDown();
                try {
                    releaseFirst.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return "first";
            }
            return "second";
        });
        // Two threads of its own: the common pool may have a single worker on a small machine.
        ExecutorService callers = Executors.newFixedThreadPool(2);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(supplier, callers);
        try {
            assertThat(firstEntered.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> second = CompletableFuture.supplyAsync(supplier, callers);
            // A caller on an event loop must not park behind a slow first resolution.
            await().atMost(Duration.ofSeconds(10)).until(second::isDone);
            assertThat(second.get()).isEqualTo("second");
            assertThat(first).isNotDone();
        } finally {
            releaseFirst.countDown();
        }
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
        callers.shutdownNow();
    }
}
