package dev.distlock.spring.internal.config;

import dev.distlock.spring.LockType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The settings of single locks by lock name ({@code distlock.locks.<name>.*}) and the one rule that
 * applies them to {@code @DistributedLock} methods and {@code LockTemplate} calls: a per-name value
 * wins over the code's (an annotation attribute, a {@code LockOptions} value), which wins over
 * {@code distlock.defaults.*}. The property is the operator's word on one named lock, the one thing
 * that can change without a new build; the code's value is the developer's default for that lock.
 *
 * <p>A per-name type only switches an exclusive lock between {@code REENTRANT} and {@code FAIR},
 * which share one data layout, so instances that disagree during a rolling change still exclude
 * each other. It never turns one side of a read-write lock into the other, nor moves a lock to or
 * from the red-lock nodes: such a call site conflicts, and fails naming the property.
 */
public final class LockNameSettings {

    /** No per-name settings. */
    public static final LockNameSettings NONE = new LockNameSettings(Map.of());

    private final Map<String, Setting> byName;

    /**
     * Creates the settings.
     * @param byName settings by lock name (the annotation's name or the template's metrics name)
     */
    public LockNameSettings(Map<String, Setting> byName) {
        this.byName = Map.copyOf(byName);
    }

    /**
     * One lock's settings; a {@code null} value leaves the code's (or the default) in place.
     *
     * @param property the settings' property prefix, {@code distlock.locks.<name>}, for messages
     * @param waitTime how long to wait, or {@code null}
     * @param leaseTime lease of the hold, or {@code null}
     * @param type {@code REENTRANT} or {@code FAIR}, or {@code null}
     */
    public record Setting(
            String property, @Nullable Duration waitTime, @Nullable Duration leaseTime, @Nullable LockType type) {}

    /**
     * A lock's values after the per-name settings, and where each one came from.
     *
     * @param type lock type
     * @param waitTime how long to wait
     * @param leaseTime lease of the hold
     * @param overrides what the per-name settings changed, e.g.
     *        {@code distlock.locks.invoice.wait-time=2s (was 30s)}; empty when nothing
     * @param leaseSource the property that set the lease, or {@code null} when the code or the default did
     */
    public record Applied(
            LockType type,
            Duration waitTime,
            Duration leaseTime,
            List<String> overrides,
            @Nullable String leaseSource) {}

    /**
     * Applies the settings of lock {@code name} to the values the code asked for.
     * @param name lock name (the annotation's name or the template's metrics name)
     * @param type type the code asked for
     * @param fenced whether the code asked for a fenced lock
     * @param waitTime wait the code asked for, or the default
     * @param leaseTime lease the code asked for, or the default
     * @param where the call site, for messages
     * @return the values to lock with
     * @throws IllegalStateException naming the property when its type conflicts with the code's
     */
    public Applied apply(
            String name, LockType type, boolean fenced, Duration waitTime, Duration leaseTime, String where) {
        Setting setting = byName.get(name);
        if (setting == null) {
            return new Applied(type, waitTime, leaseTime, List.of(), null);
        }
        List<String> overrides = new ArrayList<>();
        LockType effectiveType = type;
        if (setting.type() != null && setting.type() != type) {
            if (type != LockType.REENTRANT && type != LockType.FAIR) {
                throw new DistlockStartupException(
                        where + ": " + setting.property() + ".type=" + setting.type() + " conflicts with its type "
                                + type + "; a per-name type switches exclusive locks between REENTRANT and FAIR only",
                        "Remove " + setting.property() + ".type, or give this lock its own name.",
                        null);
            }
            if (fenced) {
                throw new DistlockStartupException(
                        where + ": " + setting.property() + ".type=" + setting.type()
                                + " conflicts with fenced = true; only a REENTRANT lock issues fencing tokens",
                        "Remove " + setting.property() + ".type, or give this lock its own name.",
                        null);
            }
            effectiveType = setting.type();
            overrides.add(setting.property() + ".type=" + setting.type() + " (was " + type + ")");
        }
        Duration effectiveWait = waitTime;
        if (setting.waitTime() != null && !setting.waitTime().equals(waitTime)) {
            effectiveWait = setting.waitTime();
            overrides.add(setting.property() + ".wait-time=" + text(effectiveWait) + " (was " + text(waitTime) + ")");
        }
        Duration effectiveLease = leaseTime;
        String leaseSource = null;
        if (setting.leaseTime() != null) {
            effectiveLease = setting.leaseTime();
            leaseSource = setting.property() + ".lease-time";
            if (!effectiveLease.equals(leaseTime)) {
                overrides.add(leaseSource + "=" + text(effectiveLease) + " (was " + text(leaseTime) + ")");
            }
        }
        return new Applied(effectiveType, effectiveWait, effectiveLease, List.copyOf(overrides), leaseSource);
    }

    private static String text(Duration duration) {
        if (duration.isNegative()) {
            return "-1";
        }
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
