package dev.distlock.samples.leader;

import dev.distlock.spring.integration.DistlockLockRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A task that runs on the elected leader only, tagged with the leader's fencing token: a store
 * that remembers the largest token it has seen rejects the writes of a leader that lost its lease.
 * The role's lock ({@code samples-leader}) is held for as long as this instance leads, so the
 * timeline shows one long hold per leadership.
 */
@Component
public class LeaderTask extends AbstractCandidate {

    private static final Logger logger = LoggerFactory.getLogger(LeaderTask.class);

    private final DistlockLockRegistry locks;
    private final AtomicInteger grants = new AtomicInteger();
    private final AtomicInteger runs = new AtomicInteger();
    private volatile long token = -1;
    private volatile long lastRunToken = -1;

    /**
     * Creates the candidate.
     * @param locks the registry, fenced ({@code distlock.integration.fenced=true})
     * @param role the leader role, which is the name of its lock
     */
    public LeaderTask(DistlockLockRegistry locks, @Value("${samples.leader-role:samples-leader}") String role) {
        super("samples-" + ProcessHandle.current().pid(), role);
        this.locks = locks;
    }

    @Override
    public void onGranted(Context context) {
        token = locks.getFencingToken(context.getRole()).orElse(-1);
        grants.incrementAndGet();
        logger.info("Leading '{}' with fencing token {}", context.getRole(), token);
    }

    @Override
    public void onRevoked(Context context) {
        token = -1;
        logger.info("No longer leading '{}'", context.getRole());
    }

    /** The schedule: every instance ticks, only the leader works. */
    @Scheduled(fixedDelayString = "${samples.leader-interval:5s}")
    public void tick() {
        long current = token;
        if (current < 0) {
            return;
        }
        // The work: here only counted; a real one sends the token with each write.
        runs.incrementAndGet();
        lastRunToken = current;
    }

    /**
     * Returns this instance's view of the election.
     * @return the state
     */
    public State state() {
        long current = token;
        return new State(getId(), getRole(), current >= 0, current, grants.get(), runs.get(), lastRunToken);
    }

    /**
     * This instance's view of the election.
     * @param id this candidate
     * @param role the role, and its lock's name
     * @param leader whether this instance leads
     * @param fencingToken the token of its leadership, or -1
     * @param grants how often it was elected
     * @param runs how often the task ran here
     * @param lastRunToken the token the task last ran with, or -1
     */
    public record State(
            String id, String role, boolean leader, long fencingToken, int grants, int runs, long lastRunToken) {}
}
