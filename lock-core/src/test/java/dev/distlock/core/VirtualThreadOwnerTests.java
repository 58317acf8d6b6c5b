package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** Virtual threads are owners like platform threads (runs on Java 21+, where they exist). */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadOwnerTests {

    @Test
    void shouldTreatEachVirtualThreadAsItsOwnOwner() throws Exception {
        try (LockClient client = LockClient.create(RedisServers.shared().uri())) {
            String name = "virtual:" + UUID.randomUUID();
            CompletableFuture<Boolean> firstHolds = new CompletableFuture<>();
            CompletableFuture<Boolean> secondRefused = new CompletableFuture<>();
            startVirtual(() -> {
                RedisLock lock = client.getLock(name);
                lock.lock(30, TimeUnit.SECONDS);
                firstHolds.complete(lock.isHeldByCurrentThread());
                Thread second = startVirtual(
                        () -> secondRefused.complete(!client.getLock(name).tryLock()));
                join(second);
                lock.unlock();
            });
            assertThat(firstHolds.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(secondRefused.get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static Thread startVirtual(Runnable task) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (Thread) Class.forName("java.lang.Thread$Builder")
                    .getMethod("start", Runnable.class)
                    .invoke(builder, task);
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
