package dev.distlock.core.nonblocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Proves {@link IoThreadsMustNotBlock} watches this JVM: otherwise its passing tests prove nothing. */
class IoThreadsMustNotBlockTests {

    @Test
    void whenAReplysContinuationSleepsOnTheIoThreadThenItIsCaught() throws Exception {
        assertThat(IoThreadsMustNotBlock.install())
                .as("BlockHound installed (JVM option %s)", IoThreadsMustNotBlock.JVM_OPTION)
                .isTrue();
        RedisClient client = RedisClient.create(RedisServers.shared().uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> threads = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> slept = connection
                    .async()
                    // Answered after 300 ms: the continuation is attached by then, and runs on the I/O thread.
                    .blpop(0.3, "io-threads-must-not-block")
                    .thenAccept(nothing -> {
                        threads.add(Thread.currentThread().getName());
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    })
                    .toCompletableFuture();
            assertThat(slept).succeedsWithin(Duration.ofSeconds(5));
            assertThat(threads).singleElement().asString().startsWith("lettuce-");
        } finally {
            client.shutdown();
        }
        // Taken here, so that this test's own blocking call does not fail it.
        assertThat(IoThreadsMustNotBlock.drain())
                .singleElement()
                .asString()
                .contains("java.lang.Thread.sleep", "BlockingOperationError");
    }
}
