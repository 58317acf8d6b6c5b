package dev.distlock.spring.internal.observation;

import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.hold.LockRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Records lock metrics in Micrometer: {@code distlock.acquire} (timer, tag {@code outcome}),
 * {@code distlock.held} (timer), {@code distlock.active} and {@code distlock.waiting} (gauges),
 * {@code distlock.lease.lost} (counter). Every meter is tagged with the lock's annotation or
 * template name ({@code lock.name}) and kind ({@code lock.type}), the tags of the observations'
 * timers. The gauges and the counter are registered with a name's first acquisition, the counter
 * at 0, so an alert on lost leases has a series before the first loss.
 *
 * <p>The meters are kept by the tags the registry gave them, not by the name asked for: past
 * {@code distlock.metrics.max-names} every further name is tagged {@code other}, and all of them
 * share one set of meters, so {@code distlock.active{lock.name=other}} counts every one of them
 * and this observer keeps no entry per name beyond the limit.
 */
public final class MicrometerLockObserver implements LockObserver {

    private static final String LOCK_NAME = "lock.name";
    private static final String LOCK_TYPE = "lock.type";

    private final MeterRegistry registry;
    private final boolean timers;
    /** By tagged name and type: at most one entry per name the registry admits, and one for other. */
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();

    /** The meters of one lock name and type that live as long as the registry. */
    private record Meters(AtomicInteger active, AtomicInteger waiting, Counter leaseLost) {}

    /**
     * Creates the observer.
     * @param registry where meters go
     */
    public MicrometerLockObserver(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * Creates the observer.
     * @param registry where meters go
     * @param timers whether to record the {@code distlock.acquire} and {@code distlock.held} timers,
     * {@code false} when observations record them
     */
    public MicrometerLockObserver(MeterRegistry registry, boolean timers) {
        this.registry = registry;
        this.timers = timers;
    }

    @Override
    public Acquiring acquireStarted(LockRequest request, long ownerId) {
        String name = request.template();
        LockType type = request.type();
        Tags tags = Tags.of(LOCK_NAME, name, LOCK_TYPE, tag(type));
        Meters lockMeters = meters(name, type, tags);
        AtomicInteger waitingNow = lockMeters.waiting();
        waitingNow.incrementAndGet();
        long start = System.nanoTime();
        return new Acquiring() {
            @Override
            public Holding acquired() {
                ended(Outcome.ACQUIRED);
                AtomicInteger activeNow = lockMeters.active();
                activeNow.incrementAndGet();
                long acquired = System.nanoTime();
                return new Holding() {
                    @Override
                    public void leaseLost() {
                        lockMeters.leaseLost().increment();
                    }

                    @Override
                    public void released() {
                        activeNow.decrementAndGet();
                        if (timers) {
                            Timer.builder("distlock.held")
                                    .description("How long locks were held")
                                    .tags(tags)
                                    .register(registry)
                                    .record(System.nanoTime() - acquired, TimeUnit.NANOSECONDS);
                        }
                    }
                };
            }

            @Override
            public void ended(Outcome outcome, @Nullable Throwable error) {
                ended(outcome);
            }

            private void ended(Outcome outcome) {
                waitingNow.decrementAndGet();
                if (timers) {
                    Timer.builder("distlock.acquire")
                            .description("Time to acquire a lock, by outcome")
                            .tags(tags)
                            .tag("outcome", outcome.tag())
                            .register(registry)
                            .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                }
            }
        };
    }

    private Meters meters(String name, LockType type, Tags tags) {
        Meters known = meters.get(key(name, type));
        if (known != null) {
            return known;
        }
        // The registry's filters decide the tag (other, past the limit): ask it through the counter,
        // which it returns already registered when another name mapped to the same tags first.
        Counter leaseLost = Counter.builder("distlock.lease.lost")
                .description("Holds whose lease was lost while the guarded code ran")
                .tags(tags)
                .register(registry);
        String tagged = leaseLost.getId().getTag(LOCK_NAME);
        return meters.computeIfAbsent(key(tagged != null ? tagged : name, type), key -> register(tags, leaseLost));
    }

    private static String key(String name, LockType type) {
        return name + "\u0000" + type;
    }

    private Meters register(Tags tags, Counter leaseLost) {
        AtomicInteger active = new AtomicInteger();
        Gauge.builder("distlock.active", active, AtomicInteger::get)
                .description("Locks held now")
                .tags(tags)
                .register(registry);
        AtomicInteger waiting = new AtomicInteger();
        Gauge.builder("distlock.waiting", waiting, AtomicInteger::get)
                .description("Callers waiting for a lock")
                .tags(tags)
                .register(registry);
        return new Meters(active, waiting, leaseLost);
    }

    private static String tag(LockType type) {
        return type.kind().kindName();
    }
}
