package dev.distlock.spring.internal.actuator;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.PermitReport;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies.SemaphoreReport;
import dev.distlock.spring.internal.hold.Hold;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The endpoint's semaphores: for each semaphore this instance holds permits of, every permit taken
 * in Redis (other instances' and Redisson's too, so an operator sees who uses the count), with this
 * instance's holders beside their permit ids. A semaphore whose Redis cannot be read is reported
 * with an {@code error}, never a 500.
 */
final class SemaphoreReports {

    private SemaphoreReports() {}

    static List<SemaphoreReport> of(LockClient client, List<Hold> permitHolds) {
        Map<String, Map<String, Hold>> byName = new TreeMap<>();
        for (Hold hold : permitHolds) {
            String id = hold.permitId();
            if (id != null) {
                byName.computeIfAbsent(hold.name(), n -> new LinkedHashMap<>()).put(id, hold);
            }
        }
        List<SemaphoreReport> reports = new ArrayList<>();
        byName.forEach((name, local) -> reports.add(report(client, name, local)));
        return reports;
    }

    private static SemaphoreReport report(LockClient client, String name, Map<String, Hold> local) {
        String key = client.getOptions().keyPrefix() + name;
        RedisSemaphore semaphore = client.getSemaphore(name);
        try {
            List<PermitReport> permits = new ArrayList<>();
            for (RedisSemaphore.Permit permit : semaphore.takenPermits()) {
                Hold hold = local.get(permit.id());
                permits.add(
                        hold == null
                                ? new PermitReport(
                                        permit.id(), permit.remainingTtlMillis(), null, null, null, null, null)
                                : new PermitReport(
                                        permit.id(),
                                        permit.remainingTtlMillis(),
                                        hold.request().template(),
                                        hold.threadName(),
                                        hold.since(),
                                        hold.request().leaseTime().isNegative(),
                                        hold.request().description()));
            }
            return new SemaphoreReport(name, key, semaphore.availablePermits(), permits, null);
        } catch (RuntimeException ex) {
            return new SemaphoreReport(name, key, null, List.of(), ex.getMessage());
        }
    }
}
