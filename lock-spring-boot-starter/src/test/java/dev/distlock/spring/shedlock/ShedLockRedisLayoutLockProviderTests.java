package dev.distlock.spring.shedlock;

import dev.distlock.core.LockClient;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;

/** {@link DistlockLockProvider#compatibleWithShedLockRedis}: ShedLock's own Redis key layout. */
class ShedLockRedisLayoutLockProviderTests extends AbstractLockProviderContractTests {

    @Override
    ExtensibleLockProvider provider(LockClient client) {
        return DistlockLockProvider.compatibleWithShedLockRedis(client, "contract");
    }

    @Override
    boolean isLockedInRedis(String jobName) {
        return redis.command("EXISTS", "job-lock:contract:" + jobName).trim().equals("1");
    }
}
