package dev.distlock.spring.internal.observation;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;

/**
 * Drops the counter Micrometer's {@code DefaultMeterObservationHandler} derives from the
 * {@code distlock.held} observation's lease-lost event. That handler counts every observation event
 * as {@code <observation name>.<event name>}, so the event that marks the loss on the hold's span
 * became a meter {@code distlock.held.distlock.lease.lost}, counting what {@code distlock.lease.lost}
 * already counts, under a name no one looks for. The event stays on the span; the filter matches any
 * observation name, so a custom {@code LockHeldObservationConvention}'s name is covered too.
 */
public final class ObservationEventMeters implements MeterFilter {

    private static final String SUFFIX = "." + ObservationLockObserver.LEASE_LOST_EVENT;

    @Override
    public MeterFilterReply accept(Meter.Id id) {
        return id.getName().endsWith(SUFFIX) ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
    }
}
