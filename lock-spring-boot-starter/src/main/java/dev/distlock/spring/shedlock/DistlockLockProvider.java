package dev.distlock.spring.shedlock;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.hold.BridgeLocks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's {@link ExtensibleLockProvider} on Distlock: the lock behind {@code @SchedulerLock}.
 *
 * <p><b>Layout.</b> Built with {@link #DistlockLockProvider(LockClient)}, a job's lock is a
 * Distlock reentrant lock named after the job (the client's key prefix applies), held by an owner
 * of its own. It therefore excludes {@code @DistributedLock}, {@code LockTemplate} and Redisson code
 * on the same name, and shows in Distlock's metrics and traces (tagged with the job's name), in the
 * {@code distlock} endpoint and on its timeline. Built with
 * {@link #compatibleWithShedLockRedis(LockClient, String)}, it reads and writes the keys of
 * ShedLock's own {@code RedisLockProvider} instead, for a rolling migration; built with
 * {@link #transitionalFromShedLockRedis(LockClient, String)}, it takes both, for the step from that
 * layout to Distlock's.
 *
 * <p><b>Times.</b> The lock lapses at {@code lockAtMostFor} after it was taken, whether or not the
 * job ended; nothing renews it (use {@code extend} or {@code LockExtender} for jobs that need
 * longer). {@code unlock} before {@code lockAtLeastFor} has passed keeps the lock taken, for every
 * node including this one, until it has: Redis keeps it for the time left, and a timer on this node
 * releases it then. {@code extend(lockAtMostFor, lockAtLeastFor)} gives the lock a new
 * {@code lockAtMostFor} from now, if it is still held, and returns the lock to use from then on.
 *
 * <p><b>Bad input.</b> A blank name, a negative {@code lockAtLeastFor}, or a {@code lockAtLeastFor}
 * longer than {@code lockAtMostFor} fail with an {@link IllegalArgumentException} naming the job and
 * the argument, before anything is locked. A {@code lockAtMostFor} that already ran out takes no
 * lock.
 */
public final class DistlockLockProvider implements ExtensibleLockProvider {

    private final JobLocks locks;

    /**
     * Creates a provider that keeps job locks in Distlock's layout, under the job's name.
     * @param client the lock client
     */
    public DistlockLockProvider(LockClient client) {
        this(new DistlockJobLocks(new BridgeLocks(Objects.requireNonNull(client, "'client' must not be null"))));
    }

    private DistlockLockProvider(JobLocks locks) {
        this.locks = locks;
    }

    /**
     * Creates a provider that keeps job locks in the layout of ShedLock's own Redis provider
     * ({@code RedisLockProvider} of {@code shedlock-provider-redis-spring}, and its Jedis and Lettuce
     * siblings): the string key {@code job-lock:<environment>:<job name>}, set with
     * {@code SET NX PX} to a value unique per run, without the client's key prefix. Nodes still on
     * ShedLock's provider and nodes on this one then skip each other's runs of a job. These locks do
     * not show in Distlock's metrics, endpoint or timeline and do not exclude Distlock locks of the
     * same name; switch to {@link #DistlockLockProvider(LockClient)} once no node runs ShedLock's
     * provider any more.
     * @param client the lock client
     * @param environment ShedLock's environment, {@code "default"} unless it was set
     * @return the provider
     */
    public static DistlockLockProvider compatibleWithShedLockRedis(LockClient client, String environment) {
        Objects.requireNonNull(client, "'client' must not be null");
        Objects.requireNonNull(environment, "'environment' must not be null");
        if (environment.isBlank()) {
            throw new IllegalArgumentException("'environment' must not be blank");
        }
        return new DistlockLockProvider(new ShedLockRedisJobLocks(client.stringLockKeys(), environment));
    }

    /**
     * Creates the provider of the step between the two layouts: each run takes its job's lock in
     * both, ShedLock's Redis key (as {@link #compatibleWithShedLockRedis}) and then the Distlock lock
     * (as {@link #DistlockLockProvider(LockClient)}), and releases and extends both. A run on this
     * provider therefore excludes runs on either neighbouring step, so a job that runs every few
     * seconds can roll from {@code compatibleWithShedLockRedis} through this provider to the default
     * one without two runs at once: deploy this provider to every instance, then the default one.
     * When the Distlock lock is taken, ShedLock's key is freed at once (the run never started), so
     * a run on either side is kept out for no longer than a try. The Distlock locks show in metrics
     * and the endpoint as with the default provider.
     * @param client the lock client
     * @param environment ShedLock's environment, {@code "default"} unless it was set
     * @return the provider
     */
    public static DistlockLockProvider transitionalFromShedLockRedis(LockClient client, String environment) {
        DistlockLockProvider shedLockRedis = compatibleWithShedLockRedis(client, environment);
        return new DistlockLockProvider(new BothLayoutsJobLocks(
                (ShedLockRedisJobLocks) shedLockRedis.locks, new DistlockJobLocks(new BridgeLocks(client))));
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "'lockConfiguration' must not be null");
        JobTimes.check(lockConfiguration);
        Duration lease = JobTimes.until(lockConfiguration.getLockAtMostUntil());
        if (lease.isNegative() || lease.isZero()) {
            return Optional.empty();
        }
        return locks.tryLock(lockConfiguration, lease);
    }

    /** How job locks are kept: one implementation per layout. */
    interface JobLocks {

        /**
         * Tries once to take a job's lock.
         * @param configuration the job's lock configuration, checked
         * @param lease time until {@code lockAtMostFor} runs out, positive
         * @return the lock, or empty when it is taken
         */
        Optional<SimpleLock> tryLock(LockConfiguration configuration, Duration lease);
    }

    /** ShedLock's time arithmetic and argument checks. */
    static final class JobTimes {

        private JobTimes() {}

        static Duration until(java.time.Instant instant) {
            return Duration.between(ClockProvider.now(), instant);
        }

        static void check(LockConfiguration configuration) {
            String name = configuration.getName();
            if (name.isBlank()) {
                throw new IllegalArgumentException("'name' of a ShedLock lock must not be blank");
            }
            if (configuration.getLockAtMostFor().isNegative()) {
                throw new IllegalArgumentException("'lockAtMostFor' of lock '" + name + "' must not be negative, was "
                        + configuration.getLockAtMostFor());
            }
            if (configuration.getLockAtLeastFor().isNegative()) {
                throw new IllegalArgumentException("'lockAtLeastFor' of lock '" + name + "' must not be negative, was "
                        + configuration.getLockAtLeastFor());
            }
            if (configuration.getLockAtLeastFor().compareTo(configuration.getLockAtMostFor()) > 0) {
                throw new IllegalArgumentException("'lockAtLeastFor' (" + configuration.getLockAtLeastFor()
                        + ") of lock '" + name + "' must not be longer than 'lockAtMostFor' ("
                        + configuration.getLockAtMostFor() + ")");
            }
        }
    }
}
