package dev.distlock.spring.observation;

/**
 * Key names of the default Distlock observation conventions.
 */
public final class LockObservationKeys {

    /** Low cardinality: the lock's template name (annotation or template call), never a resolved key. */
    public static final String LOCK_NAME = "lock.name";

    /** Low cardinality: the lock type in lower case ({@code reentrant}, {@code fair}, ...). */
    public static final String LOCK_TYPE = "lock.type";

    /** Low cardinality, {@code distlock.acquire} only: {@code acquired}, {@code timeout} or {@code error}. */
    public static final String OUTCOME = "outcome";

    /** High cardinality: the resolved Redis lock name. */
    public static final String LOCK_KEY = "lock.key";

    /** High cardinality: the owner id. */
    public static final String LOCK_OWNER = "lock.owner";

    private LockObservationKeys() {}
}
