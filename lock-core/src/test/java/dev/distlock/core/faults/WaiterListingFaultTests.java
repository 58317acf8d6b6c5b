package dev.distlock.core.faults;

import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A client that dies while listed as waiting leaves no listing behind for long. */
@Tag("fault")
class WaiterListingFaultTests {

    private RedisServer redis;
    private LockClient holderClient;
    private String name;
    private String listing;

    @BeforeEach
    void setUp() {
        redis = RedisServers.shared();
        holderClient = LockClient.create(redis.uri());
        name = "listing-fault:" + UUID.randomUUID();
        listing = "distlock_lock_waiters:{" + name + "}";
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
    }

    @Test
    void whenAListedWaiterIsKilledThenItsListingExpires() throws Exception {
        // The holder never unlocks: its lease ends, so no release script ever looks at the listing.
        holderClient.getLock(name).lock(20, TimeUnit.SECONDS);
        try (ChildJvm waiter = ChildJvm.start(LockWaiterMain.class, redis.uri(), name)) {
            // A JVM's start is slow on a busy machine and bounds nothing here; from its first command
            // on, listing itself takes the waiter one attempt.
            waiter.expect("CONNECTED", 180);
            await().atMost(Duration.ofSeconds(15)).until(() -> "1".equals(redis.command("SCARD", listing)));
            waiter.kill();
        }
        // Bound: the holder's lease (20 s) plus the listing's slack (1 s + 2 command timeouts of 3 s).
        await().atMost(Duration.ofSeconds(40)).until(() -> "0".equals(redis.command("EXISTS", listing)));
    }
}
