package dev.distlock.core.faults;

import dev.distlock.core.LockClient;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedisLock;
import java.util.function.BiFunction;

/**
 * The lock kinds of the fault tests, each as the lock an owner takes and the lock another client
 * contends with: the same kind, except for a read hold, whose contender is a writer (no read hold
 * lets one in).
 */
enum ContendedKind {
    REENTRANT(LockClient::getLock, LockClient::getLock),
    FENCED(LockClient::getFencedLock, LockClient::getFencedLock),
    FAIR(LockClient::getFairLock, LockClient::getFairLock),
    WRITE((client, name) -> client.getReadWriteLock(name).writeLock(), (client, name) -> client.getReadWriteLock(name)
            .writeLock()),
    READ((client, name) -> client.getReadWriteLock(name).readLock(), (client, name) -> client.getReadWriteLock(name)
            .writeLock()),
    /** Two members; the contender takes the second. */
    MULTI(
            (client, name) -> MultiLock.of(client.getLock(name + ":x"), client.getLock(name + ":y")),
            (client, name) -> client.getLock(name + ":y"));

    private final BiFunction<LockClient, String, RedisLock> lock;
    private final BiFunction<LockClient, String, RedisLock> contender;

    ContendedKind(BiFunction<LockClient, String, RedisLock> lock, BiFunction<LockClient, String, RedisLock> contender) {
        this.lock = lock;
        this.contender = contender;
    }

    /** @return the lock an owner takes */
    RedisLock lock(LockClient client, String name) {
        return lock.apply(client, name);
    }

    /** @return a lock that no hold of {@link #lock} lets in */
    RedisLock contender(LockClient client, String name) {
        return contender.apply(client, name);
    }
}
