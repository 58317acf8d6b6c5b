package dev.distlock.spring.internal;

import dev.distlock.spring.LockType;
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
 * {@code distlock.lease.lost} (counter). Every meter is tagged with the lock's template
 * {@code name} and {@code type}.
 */
public final class MicrometerLockObserver implements LockObserver {

    private final MeterRegistry registry;
    private final boolean timers;
    private final Map<String, AtomicInteger> active = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

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
        Tags tags = Tags.of("name", name, "type", tag(type));
        AtomicInteger waitingNow = gauge(waiting, "distlock.waiting", "Callers waiting for a lock", name, type);
        waitingNow.incrementAndGet();
        long start = System.nanoTime();
        return new Acquiring() {
            @Override
            public Holding acquired() {
                ended(Outcome.ACQUIRED);
                AtomicInteger activeNow = gauge(active, "distlock.active", "Locks held now", name, type);
                activeNow.incrementAndGet();
                long acquired = System.nanoTime();
                return new Holding() {
                    @Override
                    public void leaseLost() {
                        Counter.builder("distlock.lease.lost")
                                .description("Holds whose lease was lost while the guarded code ran")
                                .tags(tags)
                                .register(registry)
                                .increment();
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

    private AtomicInteger gauge(
            Map<String, AtomicInteger> values, String meter, String description, String name, LockType type) {
        return values.computeIfAbsent(name + "\u0000" + type, key -> {
            AtomicInteger value = new AtomicInteger();
            Gauge.builder(meter, value, AtomicInteger::get)
                    .description(description)
                    .tag("name", name)
                    .tag("type", tag(type))
                    .register(registry);
            return value;
        });
    }

    private static String tag(LockType type) {
        return type.kind().kindName();
    }
}
