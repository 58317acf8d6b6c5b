package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A key that evaluates to an {@code Iterable} which is not a collection (Spring Data's
 * {@code Streamable}, say) locks every element, as a collection does, never its {@code toString()};
 * a {@link Path}, though iterable, is one key.
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
    void whenTheKeyIsAnIterableThenEveryElementIsLocked() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            Iterable<String> items = () -> List.of("apple", "pear").iterator();
            assertThat(stock.reserve(items))
                    .as("keys in Redis while the method runs")
                    .containsExactly("1", "1");
            Iterable<String> one = () -> List.of("apple").iterator();
            assertThat(stock.reserveOne(one)).isEqualTo("stock:apple");
        });
    }

    @Test
    void whenTheKeyIsAPathThenItIsOneKey() {
        runner.run(context -> assertThat(context.getBean(Stock.class).export(Path.of("reports", "2026-11.csv")))
                .isEqualTo("export:" + Path.of("reports", "2026-11.csv")));
    }

    static class Stock {

        @DistributedLock(name = "stock", key = "#items")
        public List<String> reserve(Iterable<String> items) {
            return List.of(redis.command("EXISTS", "stock:apple"), redis.command("EXISTS", "stock:pear"));
        }

        @DistributedLock(name = "stock", key = "#items")
        public String reserveOne(Iterable<String> items) {
            return LockContext.current().name();
        }

        @DistributedLock(name = "export", key = "#file")
        public String export(Path file) {
            return LockContext.current().name();
        }
    }
}
