package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

/** {@link DistlockLockProvider}'s default layout: a Distlock lock named after the job. */
class DistlockLayoutLockProviderTests extends AbstractLockProviderContractTests {

    @Override
    ExtensibleLockProvider provider(LockClient client) {
        return new DistlockLockProvider(client);
    }

    @Override
    boolean isLockedInRedis(String jobName) {
        return redis.command("EXISTS", jobName).trim().equals("1");
    }

    @Test
    void whenAJobHoldsItsLockThenDistlockLocksOfTheSameNameAreExcludedBothWays() throws Exception {
        Optional<SimpleLock> job = provider.lock(config(name));
        assertThat(job).isNotEmpty();
        RedisLock sameName = otherNode().getLock(name);
        assertThat(sameName.tryLock()).isFalse();
        assertThat(node().heldLocks()).anyMatch(held -> held.name().equals(name));
        job.get().unlock();

        assertThat(sameName.tryLock()).isTrue();
        try {
            assertThat(provider.lock(config(name))).isEmpty();
        } finally {
            sameName.unlock();
        }
        assertThat(node().heldLocks()).noneMatch(held -> held.name().equals(name));
    }
}
