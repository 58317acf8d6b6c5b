package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;

/**
 * Spring Integration's registry and leader election tests ({@link SpringIntegrationRegistryPortTests})
 * on {@link DistlockLockRegistry#compatibleWithSpringIntegrationRedis}: {@code RedisLockRegistry}'s
 * string key {@code <registryKey>:<lockKey>}, whose value is the registry's id.
 */
class SpringIntegrationPortCompatibleLayoutTests extends SpringIntegrationRegistryPortTests {

    @Override
    DistlockLockRegistry newRegistry(LockClient client, String registryKey) {
        return DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, registryKey);
    }
}
