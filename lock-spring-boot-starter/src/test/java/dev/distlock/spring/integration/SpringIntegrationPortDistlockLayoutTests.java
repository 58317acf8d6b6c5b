package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;

/**
 * Spring Integration's registry and leader election tests ({@link SpringIntegrationRegistryPortTests})
 * on {@link DistlockLockRegistry}'s default layout: Redisson's hash at {@code <key prefix><lockKey>},
 * the prefix being {@code <registryKey>:}.
 */
class SpringIntegrationPortDistlockLayoutTests extends SpringIntegrationRegistryPortTests {

    @Override
    DistlockLockRegistry newRegistry(LockClient client, String registryKey) {
        return new DistlockLockRegistry(client);
    }
}
