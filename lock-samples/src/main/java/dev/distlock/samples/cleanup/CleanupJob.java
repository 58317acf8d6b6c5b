package dev.distlock.samples.cleanup;

import dev.distlock.samples.Pause;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A clean-up that every instance schedules and ShedLock runs on one of them per tick. Its lock
 * stays taken for at least a second ({@code lockAtLeastFor}), so an instance whose clock fires a
 * little later skips the tick instead of running it again.
 */
@Component
public class CleanupJob {

    private static final Logger logger = LoggerFactory.getLogger(CleanupJob.class);

    private final Duration work;
    private final AtomicInteger runs = new AtomicInteger();
    private volatile @Nullable Instant lastRun;

    /**
     * Creates the job.
     * @param work simulated time of one clean-up
     */
    public CleanupJob(@Value("${samples.cleanup-time:400ms}") Duration work) {
        this.work = work;
    }

    /** The schedule: every instance calls this at each tick. */
    @Scheduled(
            initialDelayString = "${samples.cleanup-interval:15s}",
            fixedDelayString = "${samples.cleanup-interval:15s}")
    public void onSchedule() {
        cleanUp();
    }

    /**
     * Cleans up, unless another caller holds the job's lock; called through the proxy, so every
     * call is locked as the scheduled one is.
     * @return when it finished, or {@code null} when the lock was taken and it did not run
     */
    @SchedulerLock(name = "${samples.cleanup-job:cleanup-job}", lockAtMostFor = "PT30S", lockAtLeastFor = "PT1S")
    public @Nullable Instant cleanUp() {
        Pause.of(work);
        runs.incrementAndGet();
        Instant finished = Instant.now();
        lastRun = finished;
        logger.info("Clean-up ran");
        return finished;
    }

    /**
     * Returns how often the clean-up ran.
     * @return the statistics
     */
    public Stats stats() {
        return new Stats(runs.get(), lastRun);
    }

    /**
     * Counts of the job.
     * @param runs times it ran on this instance
     * @param lastRun when it last finished
     */
    public record Stats(int runs, @Nullable Instant lastRun) {}
}
