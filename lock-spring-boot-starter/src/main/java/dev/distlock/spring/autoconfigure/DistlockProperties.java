package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.LockType;
import dev.distlock.spring.internal.config.LockNameSettings;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.convert.DurationUnit;

/**
 * Configuration properties of Distlock.
 */
@ConfigurationProperties("distlock")
public class DistlockProperties implements InitializingBean {

    /** Whether to enable Distlock's auto-configuration. */
    private boolean enabled = true;

    /**
     * Prefix prepended to every lock name to form its Redis key. Redisson does not add it: a Redisson
     * client locking the same names excludes Distlock only if its NameMapper prepends the same prefix.
     */
    private String keyPrefix = "";

    /** Lease of watchdog-renewed holds; renewed every third of it while held. */
    private @Nullable Duration watchdogTimeout;

    /** Whether to fail startup when Redis cannot be reached; otherwise the health indicator reports DOWN. */
    private boolean failFast = false;

    /** What to do when a lock's lease is lost while the locked method runs. */
    private LeaseLostPolicy leaseLostPolicy = LeaseLostPolicy.LOG;

    private final Redis redis = new Redis();

    private final Defaults defaults = new Defaults();

    private final Redlock redlock = new Redlock();

    private final Aspect aspect = new Aspect();

    private final Watchdog watchdog = new Watchdog();

    private final Metrics metrics = new Metrics();

    /**
     * Settings of single locks by lock name (the @DistributedLock name, ClassName.methodName by
     * default, or the LockTemplate name): wait-time (-1 waits as long as it takes), lease-time (-1 for
     * the watchdog) and type (REENTRANT or FAIR). They win over the annotation's attributes and the
     * LockTemplate options, which win over distlock.defaults.*. Write names with dots or capitals in
     * brackets: distlock.locks[OrderService.pay].wait-time.
     */
    private final Map<String, Lock> locks = new LinkedHashMap<>();

    /**
     * Checks values the binder cannot, naming the property in the failure.
     * @throws InvalidConfigurationPropertyValueException if a value is out of range
     */
    @Override
    @SuppressWarnings("deprecation")
    public void afterPropertiesSet() {
        checkWatchdogTimeout("distlock.watchdog.timeout", watchdog.getTimeout());
        checkWatchdogTimeout("distlock.watchdog-timeout", watchdogTimeout);
        Reconnect reconnect = redis.getReconnect();
        if (reconnect.getMinDelay().isNegative() || reconnect.getMinDelay().isZero()) {
            throw new InvalidConfigurationPropertyValueException(
                    "distlock.redis.reconnect.min-delay", reconnect.getMinDelay(), "The delay must be positive");
        }
        if (reconnect.getMaxDelay().compareTo(reconnect.getMinDelay()) < 0) {
            throw new InvalidConfigurationPropertyValueException(
                    "distlock.redis.reconnect.max-delay",
                    reconnect.getMaxDelay(),
                    "The longest delay must not be shorter than distlock.redis.reconnect.min-delay ("
                            + reconnect.getMinDelay() + ")");
        }
        if (metrics.getMaxNames() < 1) {
            throw new InvalidConfigurationPropertyValueException(
                    "distlock.metrics.max-names",
                    metrics.getMaxNames(),
                    "At least one lock name must be allowed in metrics");
        }
        checkLease("distlock.defaults.lease-time", defaults.getLeaseTime());
        checkLocks();
    }

    // One rule for every lease: -1 asks for the watchdog; any other negative is a sign error, which must not
    // quietly turn a bounded lease into an unbounded one.
    private static void checkLease(String property, @Nullable Duration lease) {
        if (lease != null && (lease.isZero() || (lease.isNegative() && !lease.equals(Lock.UNBOUNDED)))) {
            throw new InvalidConfigurationPropertyValueException(
                    property, lease, "Use a positive duration, or -1 for a watchdog-renewed lease");
        }
    }

    /**
     * Checks {@code distlock.locks.<name>.*}, naming the property in the failure.
     * @throws InvalidConfigurationPropertyValueException if a value is out of range
     */
    void checkLocks() {
        locks.forEach((name, lock) -> {
            String property = lockProperty(name);
            Duration wait = lock.getWaitTime();
            if (wait != null && wait.isNegative() && !wait.equals(Lock.UNBOUNDED)) {
                throw new InvalidConfigurationPropertyValueException(
                        property + ".wait-time",
                        wait,
                        "Use a duration, 0 to try once, or -1 to wait as long as it takes");
            }
            checkLease(property + ".lease-time", lock.getLeaseTime());
            LockType type = lock.getType();
            if (type != null && type != LockType.REENTRANT && type != LockType.FAIR) {
                throw new InvalidConfigurationPropertyValueException(
                        property + ".type",
                        type,
                        "Use REENTRANT or FAIR: the side of a read-write lock (READ, WRITE) is chosen per call in code,"
                                + " and RED moves the lock to other servers");
            }
        });
    }

    /**
     * Returns {@code distlock.locks.*} for the lock client's annotation and template.
     * @return the settings by lock name
     */
    LockNameSettings lockNameSettings() {
        Map<String, LockNameSettings.Setting> byName = new LinkedHashMap<>();
        locks.forEach((name, lock) -> byName.put(
                name,
                new LockNameSettings.Setting(
                        lockProperty(name), lock.getWaitTime(), lock.getLeaseTime(), lock.getType())));
        return new LockNameSettings(byName);
    }

    // Spring's form of a map key: bracketed unless it is a lower-case, dashed, alphanumeric name.
    private static String lockProperty(String name) {
        return "distlock.locks" + (name.matches("[a-z0-9][a-z0-9-]*") ? "." + name : "[" + name + "]");
    }

    private static void checkWatchdogTimeout(String property, @Nullable Duration timeout) {
        // Renewal runs every third of the lease: below a second, a GC pause or one slow command lets
        // the key expire under a live holder.
        if (timeout != null && timeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new InvalidConfigurationPropertyValueException(
                    property, timeout, "The watchdog timeout must be at least 1s (renewal runs every third of it)");
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /**
     * Lease of watchdog-renewed holds.
     * @return the value of the old property name, or {@code null}
     * @deprecated use {@code distlock.watchdog.timeout}
     */
    @Deprecated(since = "0.2.0")
    @DeprecatedConfigurationProperty(
            replacement = "distlock.watchdog.timeout",
            reason = "Watchdog settings are grouped under distlock.watchdog.*")
    public @Nullable Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    /**
     * Sets the lease of watchdog-renewed holds.
     * @param watchdogTimeout at least one second
     * @deprecated use {@code distlock.watchdog.timeout}
     */
    @Deprecated(since = "0.2.0")
    public void setWatchdogTimeout(@Nullable Duration watchdogTimeout) {
        this.watchdogTimeout = watchdogTimeout;
    }

    /**
     * Returns the watchdog lease in effect: {@code distlock.watchdog.timeout}, else the deprecated
     * {@code distlock.watchdog-timeout}, else 30 seconds.
     * @return the watchdog lease
     */
    public Duration effectiveWatchdogTimeout() {
        Duration timeout = watchdog.getTimeout();
        if (timeout != null) {
            return timeout;
        }
        return watchdogTimeout != null ? watchdogTimeout : Watchdog.DEFAULT_TIMEOUT;
    }

    public boolean isFailFast() {
        return failFast;
    }

    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }

    public LeaseLostPolicy getLeaseLostPolicy() {
        return leaseLostPolicy;
    }

    public void setLeaseLostPolicy(LeaseLostPolicy leaseLostPolicy) {
        this.leaseLostPolicy = leaseLostPolicy;
    }

    public Redis getRedis() {
        return redis;
    }

    public Defaults getDefaults() {
        return defaults;
    }

    public Redlock getRedlock() {
        return redlock;
    }

    public Aspect getAspect() {
        return aspect;
    }

    public Watchdog getWatchdog() {
        return watchdog;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Map<String, Lock> getLocks() {
        return locks;
    }

    /** Settings of one lock name; what is not set comes from the code, then from distlock.defaults.*. */
    public static class Lock {

        static final Duration UNBOUNDED = Duration.ofMillis(-1);

        /** How long to wait for this lock; 0 tries once, -1 waits as long as it takes. */
        private @Nullable Duration waitTime;

        /** Lease of this lock's holds; -1 uses the watchdog (renewed while held). */
        private @Nullable Duration leaseTime;

        /** Kind of this lock: REENTRANT or FAIR. */
        private @Nullable LockType type;

        public @Nullable Duration getWaitTime() {
            return waitTime;
        }

        public void setWaitTime(@Nullable Duration waitTime) {
            this.waitTime = waitTime;
        }

        public @Nullable Duration getLeaseTime() {
            return leaseTime;
        }

        public void setLeaseTime(@Nullable Duration leaseTime) {
            this.leaseTime = leaseTime;
        }

        public @Nullable LockType getType() {
            return type;
        }

        public void setType(@Nullable LockType type) {
            this.type = type;
        }
    }

    /** Distlock's meters. */
    public static class Metrics {

        /**
         * Most distinct lock names tagged in Distlock's meters (the name tag); further names are
         * tagged "other".
         */
        private int maxNames = 100;

        public int getMaxNames() {
            return maxNames;
        }

        public void setMaxNames(int maxNames) {
            this.maxNames = maxNames;
        }
    }

    /** Redis connection of the lock client. */
    public static class Redis {

        /**
         * Redis URL, redis://[user:password@]host[:port][/database] or rediss:// for TLS. When no
         * distlock.redis connection is set, Spring Boot's spring.data.redis connection is used, else
         * redis://localhost:6379.
         */
        private @Nullable String url;

        /** Login username, overriding the one in the URL; with Sentinel, the master's and replicas'. */
        private @Nullable String username;

        /** Login password, overriding the one in the URL; with Sentinel, the master's and replicas'. */
        private @Nullable String password;

        /** Database index, overriding the one in the URL; also applies with Sentinel. */
        private @Nullable Integer database;

        private Ssl ssl = new Ssl();

        /**
         * Bound on every Redis command; a call made while the client reconnects waits for the connection
         * at most this long (an acquisition: at most its wait time, if longer).
         */
        private Duration timeout = Duration.ofSeconds(3);

        /** Connection name shown by CLIENT LIST. */
        private @Nullable String clientName;

        private final Sentinel sentinel = new Sentinel();

        private final Cluster cluster = new Cluster();

        private final Reconnect reconnect = new Reconnect();

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable Integer getDatabase() {
            return database;
        }

        public void setDatabase(@Nullable Integer database) {
            this.database = database;
        }

        public Ssl getSsl() {
            return ssl;
        }

        /**
         * Replaces the TLS settings; also binds the deprecated boolean form {@code distlock.redis.ssl=true}.
         * @param ssl the settings
         */
        public void setSsl(Ssl ssl) {
            this.ssl = ssl;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public @Nullable String getClientName() {
            return clientName;
        }

        public void setClientName(@Nullable String clientName) {
            this.clientName = clientName;
        }

        public Sentinel getSentinel() {
            return sentinel;
        }

        public Cluster getCluster() {
            return cluster;
        }

        public Reconnect getReconnect() {
            return reconnect;
        }
    }

    /**
     * How fast a lost connection is reconnected. Calls made meanwhile wait for the connection
     * within their own deadline (wait time, or the command timeout).
     */
    public static class Reconnect {

        /** Delay before the first attempt to reconnect a lost connection; each further attempt waits twice as long. */
        private Duration minDelay = Duration.ofMillis(10);

        /**
         * Longest delay between two attempts to reconnect; once Redis is back, the client reconnects
         * within about this long. In a Cluster, also the shortest time between two topology refreshes
         * triggered by reconnects or redirects.
         */
        private Duration maxDelay = Duration.ofSeconds(1);

        public Duration getMinDelay() {
            return minDelay;
        }

        public void setMinDelay(Duration minDelay) {
            this.minDelay = minDelay;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }
    }

    /** TLS of the distlock.redis connection. */
    public static class Ssl {

        /**
         * Whether to use TLS, overriding the URL's scheme. Enabled automatically by a rediss:// URL or
         * when a bundle is set.
         */
        private @Nullable Boolean enabled;

        /** SSL bundle (spring.ssl.bundle.*) with the trust and key material; the JVM's defaults when not set. */
        private @Nullable String bundle;

        /**
         * Binds the deprecated boolean form {@code distlock.redis.ssl=true|false}.
         * @param enabled {@code true} or {@code false}
         * @return settings with only {@code enabled} set
         */
        public static Ssl valueOf(String enabled) {
            String value = enabled.trim();
            if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException("distlock.redis.ssl must be true or false, was '" + enabled
                        + "'; prefer distlock.redis.ssl.enabled and distlock.redis.ssl.bundle");
            }
            Ssl ssl = new Ssl();
            ssl.setEnabled(Boolean.parseBoolean(value));
            return ssl;
        }

        public @Nullable Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(@Nullable Boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getBundle() {
            return bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
    }

    /** Redis Sentinel connection. */
    public static class Sentinel {

        /** Name of the Redis master monitored by the sentinels. */
        private @Nullable String master;

        /** Sentinel nodes, as host:port or redis://host:port. */
        private List<String> nodes = new ArrayList<>();

        /** User name for authenticating with the sentinels themselves (not the master). */
        private @Nullable String username;

        /** Password for authenticating with the sentinels themselves; the master uses distlock.redis.password. */
        private @Nullable String password;

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable String getMaster() {
            return master;
        }

        public void setMaster(@Nullable String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** Redis Cluster connection. */
    public static class Cluster {

        /** Cluster seed nodes, as host:port or redis://host:port. */
        private List<String> nodes = new ArrayList<>();

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** Defaults of @DistributedLock and LockTemplate. */
    public static class Defaults {

        /** How long to wait for a lock; negative waits as long as it takes, 0 tries once. */
        private Duration waitTime = Duration.ofSeconds(30);

        /** Lease of a hold; -1 uses the watchdog (renewed while held). Other negative values are rejected. */
        private Duration leaseTime = Duration.ofMillis(-1);

        public Duration getWaitTime() {
            return waitTime;
        }

        public void setWaitTime(Duration waitTime) {
            this.waitTime = waitTime;
        }

        public Duration getLeaseTime() {
            return leaseTime;
        }

        public void setLeaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
        }
    }

    /** Red locks. */
    public static class Redlock {

        /**
         * Independent Redis masters of red locks (LockType.RED), as redis:// or rediss:// URLs; a majority
         * must grant a lock. Each node's client uses the main connection's credentials (unless its URL has
         * its own), TLS settings, client name, customizers and listeners.
         */
        private List<String> nodes = new ArrayList<>();

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** The @DistributedLock advisor. */
    public static class Aspect {

        /** Order of the @DistributedLock advisor; the default runs it outside @Transactional (which has the lowest precedence). */
        private int order = DEFAULT_ORDER;

        /** Default advisor order: just before the lowest precedence used by @Transactional. */
        public static final int DEFAULT_ORDER = org.springframework.core.Ordered.LOWEST_PRECEDENCE - 100;

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }

    /** The watchdog that renews holds taken without an explicit lease. */
    public static class Watchdog {

        static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

        /**
         * Lease of watchdog-renewed holds, renewed every third of it while held; at least 1s. A plain
         * number is seconds. Default 30s.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private @Nullable Duration timeout;

        public @Nullable Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(@Nullable Duration timeout) {
            this.timeout = timeout;
        }

        /** Longest time a watchdog-renewed hold is kept; the lock is released after it. Unlimited when not set. */
        private @Nullable Duration maxHold;

        public @Nullable Duration getMaxHold() {
            return maxHold;
        }

        public void setMaxHold(@Nullable Duration maxHold) {
            this.maxHold = maxHold;
        }
    }
}
