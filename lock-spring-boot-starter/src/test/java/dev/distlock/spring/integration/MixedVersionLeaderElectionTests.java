package dev.distlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Leader election during a rolling migration: {@link LockRegistryLeaderInitiator}s of old instances
 * on Spring Integration's {@link RedisLockRegistry} (one spin, one pub/sub) and of new instances on
 * {@link DistlockLockRegistry#compatibleWithSpringIntegrationRedis}, stopped and started across
 * the two, with a shared register of who leads.
 *
 * <p>The register counts a grant while another instance is registered as two leaders. An
 * instance leaves the register when it starts releasing its role's lock (the initiator calls
 * {@code onRevoked} only after its {@code unlock}, so the next leader may be granted in between),
 * or when it is revoked; never when its lock merely expires.
 */
class MixedVersionLeaderElectionTests {

    private static final RedisServer redis = RedisServers.shared();

    private final String registryKey = "leaders-" + UUID.randomUUID();
    private final AtomicReference<String> leader = new AtomicReference<>();
    private final AtomicInteger twoLeaders = new AtomicInteger();
    private final Set<String> everLed = ConcurrentHashMap.newKeySet();
    private final List<Instance> instances = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (Instance instance : instances) {
            instance.initiator.stop();
        }
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    private Instance oldInstance(String id, RedisLockType type) {
        URI uri = URI.create(redis.uri());
        LettuceConnectionFactory connections =
                new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
        RedisLockRegistry registry = new RedisLockRegistry(connections, registryKey);
        registry.setRedisLockType(type);
        resources.add(connections::destroy);
        resources.add(registry::destroy);
        return instance(id, registry);
    }

    private Instance newInstance(String id) {
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(redis.uri())
                .watchdogTimeout(Duration.ofSeconds(3))
                .build());
        resources.add(client);
        return instance(id, DistlockLockRegistry.compatibleWithSpringIntegrationRedis(client, registryKey));
    }

    private Instance instance(String id, LockRegistry<?> registry) {
        Instance instance = new Instance(id, registry);
        instances.add(instance);
        return instance;
    }

    private Instance awaitLeader() {
        return awaitLeader(List.of());
    }

    /** The leader, once it is none of the stopped instances (their revocation comes on their own thread). */
    private Instance awaitLeader(List<Instance> stopped) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            String now = leader.get();
            return now != null
                    && stopped.stream().noneMatch(instance -> instance.getId().equals(now));
        });
        String id = leader.get();
        return instances.stream()
                .filter(instance -> instance.getId().equals(id))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void whenInstancesOfBothVersionsAreStoppedAndStartedThenThereIsNeverASecondLeader() throws Exception {
        oldInstance("old-spin", RedisLockType.SPIN_LOCK);
        oldInstance("old-pubsub", RedisLockType.PUB_SUB_LOCK);
        newInstance("new-1");
        newInstance("new-2");
        instances.forEach(instance -> instance.initiator.start());
        for (int round = 0; round < 12; round++) {
            Instance current = awaitLeader();
            // Several heartbeats: every candidate keeps trying while the leader keeps its lock.
            Thread.sleep(1_200);
            assertThat(twoLeaders).as("two leaders at once").hasValue(0);
            // Every other round stops all instances of the leader's version, so that leadership must
            // pass to the other version however the candidates' timing falls.
            String version = current.getId().substring(0, 3);
            List<Instance> stopped = round % 2 == 0
                    ? List.of(current)
                    : instances.stream()
                            .filter(instance -> instance.getId().startsWith(version))
                            .toList();
            stopped.forEach(instance -> instance.initiator.stop());
            awaitLeader(stopped);
            stopped.forEach(instance -> instance.initiator.start());
        }
        assertThat(twoLeaders).as("two leaders at once").hasValue(0);
        assertThat(everLed)
                .as("leadership passed between old and new instances")
                .anyMatch(id -> id.startsWith("old"))
                .anyMatch(id -> id.startsWith("new"));
    }

    /** One instance: its registry, as the initiator sees it, and its candidate. */
    private final class Instance extends AbstractCandidate {

        final LockRegistryLeaderInitiator initiator;

        Instance(String id, LockRegistry<?> registry) {
            super(id, "billing-leader");
            this.initiator = new LockRegistryLeaderInitiator(key -> new Released(registry.obtain(key), id), this);
            initiator.setHeartBeatMillis(300);
            initiator.setBusyWaitMillis(50);
        }

        @Override
        public void onGranted(Context context) {
            if (!leader.compareAndSet(null, getId())) {
                twoLeaders.incrementAndGet();
                leader.set(getId());
            }
            everLed.add(getId());
        }

        @Override
        public void onRevoked(Context context) {
            leader.compareAndSet(getId(), null);
        }
    }

    /** The initiator's lock, leaving the register as its outermost hold starts to be released. */
    private final class Released implements Lock {

        private final Lock lock;
        private final String id;
        private int holds;

        Released(Lock lock, String id) {
            this.lock = lock;
            this.id = id;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            boolean taken = lock.tryLock(time, unit);
            if (taken) {
                holds++;
            }
            return taken;
        }

        @Override
        public void unlock() {
            if (--holds <= 0) {
                holds = 0;
                leader.compareAndSet(id, null);
            }
            lock.unlock();
        }

        @Override
        public void lock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
