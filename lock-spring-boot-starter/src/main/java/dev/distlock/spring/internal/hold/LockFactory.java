package dev.distlock.spring.internal.hold;

import dev.distlock.core.LockClient;
import dev.distlock.core.MultiLock;
import dev.distlock.core.RedLock;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockType;
import java.util.List;

/**
 * Turns a resolved lock name and a {@link LockType} into a core {@link RedisLock}.
 */
final class LockFactory {

    private final LockClient client;
    private final List<LockClient> redLockClients;
    private final SemaphorePermits semaphorePermits = new SemaphorePermits();

    /**
     * Creates a factory.
     * @param client the main client
     * @param redLockClients one client per independent master for {@link LockType#RED}
     */
    LockFactory(LockClient client, List<LockClient> redLockClients) {
        this.client = client;
        this.redLockClients = List.copyOf(redLockClients);
    }

    /**
     * Returns the lock for one name.
     * @param name resolved lock name
     * @param type kind of lock
     * @param fenced whether a fenced lock is wanted
     * @return the lock
     */
    RedisLock lock(String name, LockType type, boolean fenced) {
        if (fenced) {
            if (type != LockType.REENTRANT) {
                throw new IllegalStateException("Lock '" + name + "': fenced = true needs type REENTRANT, not " + type);
            }
            return client.getFencedLock(name);
        }
        return switch (type) {
            case REENTRANT -> client.getLock(name);
            case FAIR -> client.getFairLock(name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
            case RED -> redLock(name);
            case SEMAPHORE ->
                throw new IllegalStateException("Semaphore '" + name + "' needs its permit count: see permit(...)");
        };
    }

    /**
     * Returns one lock over several names, acquired all or nothing.
     * @param names resolved lock names, at least two
     * @param type kind of lock of every name
     * @return the lock
     */
    RedisLock multi(List<String> names, LockType type) {
        return MultiLock.of(names.stream().map(n -> lock(n, type, false)).toArray(RedisLock[]::new));
    }

    /**
     * Returns one permit of a semaphore, as a lock; its count is set on the semaphore's first use.
     * @param name resolved semaphore name
     * @param permits permit count
     * @return the permit, not yet taken
     */
    RedisLock permit(String name, int permits) {
        return new PermitLock(client.getSemaphore(name), semaphorePermits, permits);
    }

    private RedisLock redLock(String name) {
        if (redLockClients.isEmpty()) {
            throw new IllegalStateException("Lock '" + name + "' is of type RED but distlock.redlock.nodes is empty");
        }
        return RedLock.of(redLockClients.stream().map(c -> c.getLock(name)).toArray(RedisLock[]::new));
    }

    /**
     * Returns the main client.
     * @return the client
     */
    LockClient client() {
        return client;
    }
}
