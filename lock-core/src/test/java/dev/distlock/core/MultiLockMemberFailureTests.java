package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The unlock of a multi lock whose members are released in one script when one member cannot be
 * released (its key was overwritten with another type): every other member is still released, in
 * Redis and in the client's own records, and the failure names the member that failed.
 */
class MultiLockMemberFailureTests {

    private static final RedisServer redis = RedisServers.shared();
    private static LockClient client;
    private static LockClient other;

    @BeforeAll
    static void startClients() {
        client = LockClient.create(redis.uri());
        other = LockClient.create(redis.uri());
        // Connected, with the scripts loaded, before any test: a cold first call on a loaded machine
        // can outlast the command timeout.
        for (LockClient warm : new LockClient[] {client, other}) {
            MultiLock multi = MultiLock.of(warm.getLock(unique("warm")), warm.getLock(unique("warm")));
            multi.lock();
            multi.unlock();
        }
    }

    @AfterAll
    static void stopClients() {
        client.close();
        other.close();
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID();
    }

    private static boolean records(LockClient client, String name) {
        return client.heldLocks().stream().anyMatch(held -> held.name().equals(name));
    }

    @Test
    void whenTheFirstMemberKeyHoldsAStringThenUnlockReleasesTheOtherAndThrowsTheMemberFailure() throws Exception {
        // Members are released in key order: the broken one comes first, so the script meets it first.
        String x = unique("a");
        String y = unique("b");
        MultiLock multi = MultiLock.of(client.getLock(x), client.getLock(y));
        assertThat(multi.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        redis.command("SET", x, "junk");

        Throwable failure = catchThrowable(multi::unlock);

        assertThat(redis.command("EXISTS", y)).isEqualTo("0");
        assertThat(other.getLock(y).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isTrue();
        assertThat(records(client, x)).isFalse();
        assertThat(records(client, y)).isFalse();
        assertThat(redis.command("GET", x)).contains("junk");
        assertThat(failure)
                .isInstanceOf(LockException.class)
                .hasMessageContaining("WRONGTYPE")
                .hasMessageContaining("'" + x + "'");
        other.getLock(y).forceUnlock();
        redis.command("DEL", x);
    }

    @Test
    void whenTheLastMemberKeyHoldsAStringThenUnlockReleasesTheOtherAndThrowsTheMemberFailure() throws Exception {
        String y = unique("a");
        String x = unique("b");
        MultiLock multi = MultiLock.of(client.getLock(x), client.getLock(y));
        assertThat(multi.tryLock(0, 60, TimeUnit.SECONDS)).isTrue();
        redis.command("SET", x, "junk");

        Throwable failure = catchThrowable(multi::unlock);

        assertThat(redis.command("EXISTS", y)).isEqualTo("0");
        assertThat(records(client, x)).isFalse();
        assertThat(records(client, y)).isFalse();
        assertThat(failure)
                .isInstanceOf(LockException.class)
                .hasMessageContaining("WRONGTYPE")
                .hasMessageContaining("'" + x + "'");
        redis.command("DEL", x);
    }

    @Test
    void whenAMemberKeyHoldsAStringThenUnlockAsyncReleasesTheOthersAndFailsWithTheMemberFailure() throws Exception {
        String x = unique("a");
        String y = unique("b");
        String z = unique("c");
        MultiLock multi = MultiLock.of(client.getLock(x), client.getLock(y), client.getLock(z));
        long owner = RedisLock.newOwnerId();
        assertThat(multi.tryLockAsync(0, 60, TimeUnit.SECONDS, owner)
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS))
                .isTrue();
        redis.command("SET", x, "junk");

        Throwable failure = catchThrowable(
                () -> multi.unlockAsync(owner).toCompletableFuture().join());

        assertThat(redis.command("EXISTS", y)).isEqualTo("0");
        assertThat(redis.command("EXISTS", z)).isEqualTo("0");
        assertThat(other.getLock(y).tryLock(0, 10, TimeUnit.SECONDS, RedisLock.newOwnerId()))
                .isTrue();
        assertThat(client.heldLocks().stream().noneMatch(held -> held.ownerId() == owner))
                .isTrue();
        assertThat(failure)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(LockException.class)
                .hasMessageContaining("WRONGTYPE")
                .hasMessageContaining("'" + x + "'");
        other.getLock(y).forceUnlock();
        redis.command("DEL", x);
    }

    @Test
    void whenAMemberKeyHoldsAStringThenANestedHoldOfAnotherMemberStaysHeldAndRenewed() throws Exception {
        String x = unique("a");
        String y = unique("b");
        long owner = RedisLock.newOwnerId();
        // The owner holds y on its own as well: the multi lock's unlock gives back only its own hold.
        assertThat(client.getLock(y).tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        MultiLock multi = MultiLock.of(client.getLock(x), client.getLock(y));
        assertThat(multi.tryLock(0, 60, TimeUnit.SECONDS, owner)).isTrue();
        redis.command("SET", x, "junk");

        assertThatThrownBy(() -> multi.unlock(owner)).isInstanceOf(LockException.class);

        assertThat(client.getLock(y).isHeldBy(owner)).isTrue();
        assertThat(client.heldLocks().stream()
                        .filter(held -> held.name().equals(y))
                        .map(HeldLock::holdCount))
                .containsExactly(1);
        client.getLock(y).unlock(owner);
        assertThat(redis.command("EXISTS", y)).isEqualTo("0");
        redis.command("DEL", x);
    }
}
