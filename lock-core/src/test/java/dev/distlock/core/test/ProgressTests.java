package dev.distlock.core.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The wait that bounds fixed work by its progress: slow work passes, stuck work fails. */
class ProgressTests {

    @Test
    void workThatKeepsMovingMayTakeLongerThanTheStallBound() throws Exception {
        AtomicLong steps = new AtomicLong();
        CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> {
            // Ten steps of 150 ms: 1.5 s in all, three times the 0.5 s a step may stand still.
            for (int i = 0; i < 10; i++) {
                sleep(150);
                steps.incrementAndGet();
            }
            return "done";
        });
        assertThat(Progress.await("slow work", work, steps::get, Duration.ofMillis(500)))
                .isEqualTo("done");
    }

    @Test
    void workThatStopsMovingFailsNamingItself() {
        CompletableFuture<String> stuck = new CompletableFuture<>();
        assertThatThrownBy(() -> Progress.await("stuck work", stuck, () -> 7, Duration.ofMillis(500)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("stuck work made no progress")
                .hasMessageContaining("stuck at 7");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
