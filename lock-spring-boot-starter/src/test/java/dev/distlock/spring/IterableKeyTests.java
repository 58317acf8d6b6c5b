package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A key that evaluates to a collection or an array locks every element. An {@code Iterable} that is
 * not a collection, an {@code Iterator} or a {@code Stream} may be readable only once (an
 * {@code Iterable} made of {@code stream::iterator}, say): reading its elements for the lock names
 * would use it up before the method runs, and its {@code toString()} names the instance, not the
 * elements. Such a key is refused before anything runs, with the argument left as it was. A
 * {@link Path}, though iterable, is one key.
 */
class IterableKeyTests {

    static final RedisServer redis = RedisServers.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=0")
            .withBean(Stock.class);

    @BeforeEach
    void setUp() {
        redis.command("FLUSHALL");
    }

    @Test
    void whenTheKeyIsACollectionOrAnArrayThenEveryElementIsLocked() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            assertThat(stock.reserveAll(List.of("apple", "pear")))
                    .as("keys in Redis while the method runs")
                    .containsExactly("1", "1");
            assertThat(stock.reserveArray(new String[] {"apple", "pear"})).containsExactly("1", "1");
        });
    }

    @Test
    void whenTheKeyIsAOneShotIterableThenTheCallIsRefusedAndTheArgumentIsLeftUsable() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            Stream<String> skus = Stream.of("apple", "pear");
            Iterable<String> once = skus::iterator;

            assertThatIllegalStateException()
                    .isThrownBy(() -> stock.reserve(once))
                    .withMessageContaining("'#skus'")
                    .withMessageContaining("Stock.reserve")
                    .withMessageContaining("not a Collection")
                    .withMessageContaining("the method was not called");
            assertThat(stock.calls()).isZero();
            assertThat(redis.command("KEYS", "*")).asString().doesNotContain("stock");
            // Nothing read it: the caller can still use it.
            List<String> left = new ArrayList<>();
            once.forEach(left::add);
            assertThat(left).containsExactly("apple", "pear");
        });
    }

    @Test
    void whenTheKeyIsAnIteratorOrAStreamThenTheCallIsRefused() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            Iterator<String> iterator = List.of("apple").iterator();
            assertThatIllegalStateException()
                    .isThrownBy(() -> stock.reserveNext(iterator))
                    .withMessageContaining("'#skus'")
                    .withMessageContaining("Stock.reserveNext");
            assertThat(iterator.next()).isEqualTo("apple");
            assertThatIllegalStateException()
                    .isThrownBy(() -> stock.reserveStream(Stream.of("apple")))
                    .withMessageContaining("'#skus'")
                    .withMessageContaining("Stock.reserveStream");
            assertThat(stock.calls()).isZero();
        });
    }

    @Test
    void whenTheKeyIsAPathThenItIsOneKey() {
        runner.run(context -> assertThat(context.getBean(Stock.class).export(Path.of("reports", "2026-11.csv")))
                .isEqualTo("export:" + Path.of("reports", "2026-11.csv")));
    }

    static class Stock {

        final AtomicInteger calls = new AtomicInteger();

        // Read through a method: the fields of the proxy the tests get are not the bean's.
        public int calls() {
            return calls.get();
        }

        @DistributedLock(name = "stock", key = "#skus")
        public List<String> reserveAll(List<String> skus) {
            return List.of(redis.command("EXISTS", "stock:apple"), redis.command("EXISTS", "stock:pear"));
        }

        @DistributedLock(name = "stock", key = "#skus")
        public List<String> reserveArray(String[] skus) {
            return List.of(redis.command("EXISTS", "stock:apple"), redis.command("EXISTS", "stock:pear"));
        }

        @DistributedLock(name = "stock", key = "#skus")
        public List<String> reserve(Iterable<String> skus) {
            calls.incrementAndGet();
            List<String> read = new ArrayList<>();
            skus.forEach(read::add);
            return read;
        }

        @DistributedLock(name = "stock", key = "#skus")
        public String reserveNext(Iterator<String> skus) {
            calls.incrementAndGet();
            return skus.next();
        }

        @DistributedLock(name = "stock", key = "#skus")
        public long reserveStream(Stream<String> skus) {
            calls.incrementAndGet();
            return skus.count();
        }

        @DistributedLock(name = "export", key = "#file")
        public String export(Path file) {
            return LockContext.current().name();
        }
    }
}
