package dev.distlock.spring.shedlock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import org.junit.jupiter.api.Test;

/** The provider's factories name the argument they refuse. */
class DistlockLockProviderArgumentsTests {

    @Test
    void whenTheClientOrEnvironmentIsMissingOrBlankThenTheErrorNamesIt() {
        assertThatThrownBy(() -> new DistlockLockProvider(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'client'");
        assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(null, "default"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("'client'");
        try (LockClient client = LockClient.create("redis://localhost:1")) {
            assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(client, null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("'environment'");
            assertThatThrownBy(() -> DistlockLockProvider.compatibleWithShedLockRedis(client, " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'environment' must not be blank");
        }
    }
}
