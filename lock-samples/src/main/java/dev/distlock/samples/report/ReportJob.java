package dev.distlock.samples.report;

import dev.distlock.samples.Pause;
import dev.distlock.spring.LockResult;
import dev.distlock.spring.LockTemplate;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled report that every instance schedules but only one runs per tick: each tries the
 * {@code report-job} lock once, without waiting, and skips the tick when another instance has it.
 */
@Component
public class ReportJob {

    /** Lock name of the job. */
    public static final String LOCK = "report-job";

    private static final Logger logger = LoggerFactory.getLogger(ReportJob.class);

    private final LockTemplate locks;

    private final Duration work;

    private final AtomicInteger runs = new AtomicInteger();

    private final AtomicInteger skips = new AtomicInteger();

    private volatile @Nullable Instant lastRun;

    /**
     * Creates the job.
     * @param locks the lock template
     * @param work simulated time of one report
     */
    public ReportJob(LockTemplate locks, @Value("${samples.report-time:600ms}") Duration work) {
        this.locks = locks;
        this.work = work;
    }

    /** The schedule: every instance calls this at each tick. */
    @Scheduled(
            initialDelayString = "${samples.report-interval:20s}",
            fixedDelayString = "${samples.report-interval:20s}")
    public void onSchedule() {
        run("scheduler");
    }

    /**
     * Runs the report unless another caller is running it.
     * @param instance who asks, for the log
     * @return whether this call ran it
     */
    public boolean run(String instance) {
        LockResult<Instant> result = locks.tryExecute(LOCK, Duration.ZERO, () -> {
            Pause.of(work);
            return Instant.now();
        });
        if (result.wasExecuted()) {
            runs.incrementAndGet();
            lastRun = result.getValue();
            logger.info("Report run by {}", instance);
            return true;
        }
        skips.incrementAndGet();
        logger.info("Report skipped by {}: another instance is running it", instance);
        return false;
    }

    /**
     * Returns how often the report ran and was skipped.
     * @return the statistics
     */
    public Stats stats() {
        return new Stats(runs.get(), skips.get(), lastRun);
    }

    /**
     * Counts of the job.
     * @param runs times it ran
     * @param skips times a tick found it running elsewhere
     * @param lastRun when it last finished
     */
    public record Stats(int runs, int skips, @Nullable Instant lastRun) {}
}
