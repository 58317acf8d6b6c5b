package dev.distlock.spring.internal.observation;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the distinct values of the {@code lock.name} tag of Distlock's meters: past the limit, new lock
 * names are tagged {@code other}, so lock names built from ids cannot grow the meter registry
 * without bound.
 */
public final class LockNameTagLimit implements MeterFilter {

    /** Tag value of the names past the limit. */
    public static final String OTHER = "other";

    private static final String TAG = "lock.name";

    private static final Logger logger = LoggerFactory.getLogger(LockNameTagLimit.class);

    private final int maxNames;
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private volatile boolean warned;

    /**
     * Creates the filter.
     * @param maxNames {@code distlock.metrics.max-names}
     */
    public LockNameTagLimit(int maxNames) {
        if (maxNames < 1) {
            throw new IllegalArgumentException("distlock.metrics.max-names must be at least 1, was " + maxNames);
        }
        this.maxNames = maxNames;
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith("distlock.")) {
            return id;
        }
        String name = id.getTag(TAG);
        if (name == null || name.equals(OTHER) || admit(name)) {
            return id;
        }
        if (!warned) {
            warned = true;
            logger.warn(
                    "More than {} lock names in metrics (distlock.metrics.max-names); further ones, such as "
                            + "'{}', are tagged '{}'. Give LockTemplate a metrics name apart from the key, or raise the "
                            + "limit",
                    maxNames,
                    name,
                    OTHER);
        }
        return id.replaceTags(Tags.of(id.getTagsAsIterable()).and(Tag.of(TAG, OTHER)));
    }

    private boolean admit(String name) {
        if (names.contains(name)) {
            return true;
        }
        synchronized (names) {
            if (names.size() < maxNames) {
                names.add(name);
                return true;
            }
            return names.contains(name);
        }
    }
}
