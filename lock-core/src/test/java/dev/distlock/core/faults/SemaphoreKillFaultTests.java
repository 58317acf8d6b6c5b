package dev.distlock.core.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A process holding a watchdog permit dies by SIGKILL: the permit comes back within the watchdog timeout. */
@Tag("fault")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SemaphoreKillFaultTests {

    private static final long WATCHDOG_MILLIS = 3000;

    @Test
    void whenHolderProcessIsKilledThenItsWatchdogPermitComesBackWithinTheWatchdogTimeout() throws Exception {
        RedisServer redis = RedisServers.shared();
        String name = "semaphore-kill:" + UUID.randomUUID();
        try (LockClient client = LockClient.create(redis.uri());
                ChildJvm holder =
                        ChildJvm.start(SemaphoreHolderMain.class, redis.uri(), name, Long.toString(WATCHDOG_MILLIS))) {
            RedisSemaphore semaphore = client.getSemaphore(name);
            semaphore.trySetPermits(1);
            String held = holder.expect("PERMIT", 30);
            // Held past two watchdog timeouts: the child's renewals keep it.
            Thread.sleep(2 * WATCHDOG_MILLIS);
            assertThat(semaphore.tryAcquire(0, 30, TimeUnit.SECONDS)).isNull();
            long killedAt = System.nanoTime();
            holder.kill();
            String permit = semaphore.tryAcquire(10, 30, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertThat(permit).isNotNull().isNotEqualTo(held);
            // A full watchdog timeout at most (renewed just before the kill), plus a loaded machine's slack.
            assertThat(millis).isLessThan(WATCHDOG_MILLIS + 3000);
            semaphore.release(permit);
        }
    }
}
