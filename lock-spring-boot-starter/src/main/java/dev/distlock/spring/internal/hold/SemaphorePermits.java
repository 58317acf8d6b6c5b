package dev.distlock.spring.internal.hold;

import dev.distlock.core.RedisSemaphore;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets each semaphore's permit count on its first use by this instance ({@code trySetPermits}, which
 * keeps a count Redis already holds), and warns once per semaphore when the count in Redis differs
 * from the one asked for: a change of {@code permits} in code does not reach Redis by itself, and
 * failing startup would stop every instance for what an operator can fix with one key.
 */
final class SemaphorePermits {

    private static final Logger logger = LoggerFactory.getLogger(SemaphorePermits.class);

    private final Map<String, CompletableFuture<Void>> set = new ConcurrentHashMap<>();

    /**
     * Sets the count on the first call for a semaphore; later calls share that call's outcome.
     * Never blocks: the check of a count already set runs on the common pool and only logs.
     * @param semaphore the semaphore
     * @param permits the count asked for
     * @return completes once the semaphore has a count
     */
    CompletableFuture<Void> ensure(RedisSemaphore semaphore, int permits) {
        CompletableFuture<Void> done = set.get(semaphore.getName());
        if (done != null) {
            return done;
        }
        return set.computeIfAbsent(semaphore.getName(), name -> {
            CompletableFuture<Void> result = new CompletableFuture<>();
            semaphore.trySetPermitsAsync(permits).whenComplete((wasSet, error) -> {
                if (error != null) {
                    // Not set: the next call tries again.
                    set.remove(name, result);
                    result.completeExceptionally(error);
                    return;
                }
                if (!wasSet) {
                    CompletableFuture.runAsync(() -> warnIfDifferent(semaphore, permits));
                }
                result.complete(null);
            });
            return result;
        });
    }

    private static void warnIfDifferent(RedisSemaphore semaphore, int permits) {
        try {
            // Read twice around the count, so a permit taken or given back meanwhile is not a difference.
            Set<String> before = ids(semaphore.takenPermits());
            int available = semaphore.availablePermits();
            Set<String> after = ids(semaphore.takenPermits());
            int total = available + after.size();
            if (before.equals(after) && total != permits) {
                logger.warn(
                        "Semaphore '{}' has {} permits in Redis, not the {} asked for: the count is set only when "
                                + "none is set. To change it, delete its key and its ':timeout' set while no permit "
                                + "is taken",
                        semaphore.getName(),
                        total,
                        permits);
            }
        } catch (RuntimeException ex) {
            logger.debug("Could not compare the permit count of semaphore '{}'", semaphore.getName(), ex);
        }
    }

    private static Set<String> ids(List<RedisSemaphore.Permit> permits) {
        Set<String> ids = new HashSet<>();
        permits.forEach(p -> ids.add(p.id()));
        return ids;
    }
}
