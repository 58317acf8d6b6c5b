package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.autoconfigure.DistlockConnectionDetails;
import dev.distlock.test.app.ReportApplication;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Boot application's test with {@link DistlockTestRedis}: its locks and its own Redis template
 * reach the throw-away server, although its configuration names a Redis on port 1 where nothing listens.
 */
@SpringBootTest(
        classes = ReportApplication.class,
        properties = {"distlock.redis.url=redis://127.0.0.1:1", "spring.data.redis.port=1"})
@DistlockTestRedis(flushBeforeEach = true)
class DistlockTestRedisBootTests {

    @Autowired
    ReportApplication.ReportService reports;

    @Test
    void whenALockedMethodRunsThenItsLockIsInTheTestRedis(TestRedis redis) {
        String held = reports.run(() -> LockContext.current().name() + "=" + redis.command("EXISTS", "report"));
        assertThat(held).isEqualTo("report=1");
        assertThat(redis.command("EXISTS", "report")).isEqualTo("0");
    }

    @Test
    void whenAnotherClientOfTheTestRedisHoldsTheLockThenTheApplicationDoesNotGetIt(TestRedis redis)
            throws InterruptedException {
        try (LockClient other = LockClient.create(redis.uri())) {
            RedisLock lock = other.getLock("report");
            long owner = RedisLock.newOwnerId();
            assertThat(lock.tryLock(0, 30_000, TimeUnit.MILLISECONDS, owner)).isTrue();
            assertThatExceptionOfType(LockAcquisitionException.class)
                    .isThrownBy(() -> reports.run(() -> "ran"))
                    .withMessageContaining("'report'");
            lock.unlock(owner);
        }
        assertThat(reports.run(() -> "ran")).isEqualTo("ran");
    }

    @Test
    void whenTheApplicationUsesSpringBootsRedisThenItReachesTheSameServer(
            @Autowired StringRedisTemplate template, TestRedis redis) {
        template.opsForValue().set("greeting", "hello");
        assertThat(redis.command("GET", "greeting")).isEqualTo("hello");
    }

    @Test
    void whenTheContextStartsThenItsConnectionDetailsNameTheTestRedis(
            @Autowired DistlockConnectionDetails distlock,
            @Autowired DataRedisConnectionDetails data,
            TestRedis redis) {
        assertThat(distlock.getStandalone().getPort()).isEqualTo(redis.port());
        assertThat(data.getStandalone().getPort()).isEqualTo(redis.port());
    }

    @Nested
    class WhenNested {

        @Test
        void thenTheTestRedisIsInherited(TestRedis redis) {
            assertThat(reports.run(() -> redis.command("EXISTS", "report"))).isEqualTo("1");
        }
    }
}
