package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One process taking part in leader election: its own {@link LockClient}, a fenced
 * {@link DistlockLockRegistry} on it, and a {@link LockRegistryLeaderInitiator} whose candidate
 * reads its fencing token when it is granted leadership, as a leader that fences its work would.
 */
final class LeaderNode implements Candidate, AutoCloseable {

    private final String id;
    private final String role;
    private final LockClient client;
    final DistlockLockRegistry registry;
    final LockRegistryLeaderInitiator initiator;
    /** The fencing token read at each grant, in order. */
    final List<Long> grants = new CopyOnWriteArrayList<>();

    final AtomicInteger revocations = new AtomicInteger();

    LeaderNode(String redisUri, Duration lease, String id, String role) {
        this.id = id;
        this.role = role;
        this.client = LockClient.create(
                LockClientOptions.builder().uri(redisUri).watchdogTimeout(lease).build());
        this.registry = new DistlockLockRegistry(client);
        registry.setFenced(true);
        this.initiator = new LockRegistryLeaderInitiator(registry, this);
    }

    @Override
    public String getRole() {
        return role;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public void onGranted(Context context) {
        grants.add(registry.getFencingToken(context.getRole())
                .orElseThrow(() -> new AssertionError(
                        "leader " + id + " holds no fencing token for role '" + context.getRole() + "'")));
    }

    @Override
    public void onRevoked(Context context) {
        revocations.incrementAndGet();
    }

    boolean isLeader() {
        return initiator.getContext().isLeader();
    }

    long lastToken() {
        return grants.get(grants.size() - 1);
    }

    @Override
    public void close() {
        initiator.destroy();
        client.close();
    }

    @Override
    public String toString() {
        return id;
    }
}
