package dev.distlock.samples.handoff;

import dev.distlock.core.LockClient;
import dev.distlock.samples.Concurrently;
import dev.distlock.samples.Pause;
import dev.distlock.spring.LockAcquisitionException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The hand-off demo: {@code workers} threads each take the {@code baton} lock {@code rounds} times,
 * an impatient one gives up after 100 ms, and one overruns the fixed lease of
 * {@code baton-overrun}. Its picture is the page's timeline.
 */
@RestController
@RequestMapping("/api/demo")
class HandoffController {

    private static final Logger logger = LoggerFactory.getLogger(HandoffController.class);

    private final Baton baton;

    private final LockClient client;

    private final Duration work;

    HandoffController(Baton baton, LockClient client, @Value("${samples.handoff-time:400ms}") Duration work) {
        this.baton = baton;
        this.client = client;
        this.work = work;
    }

    @PostMapping("/handoff")
    HandoffDemo demo(@RequestParam(defaultValue = "5") int workers, @RequestParam(defaultValue = "3") int rounds) {
        if (workers < 1 || workers > 16) {
            throw new IllegalArgumentException("'workers' must be between 1 and 16, was " + workers);
        }
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("'rounds' must be between 1 and 20, was " + rounds);
        }
        logger.info("Hand-off demo: {} workers, {} rounds of {} each", workers, rounds, work);
        // Two more threads than workers: the impatient one and the one that overruns its lease.
        List<Boolean> held = Concurrently.run(workers + 2, Duration.ofMillis(20), i -> {
            if (i == workers) {
                Thread.currentThread().setName("impatient");
                // It arrives while a worker holds the baton, so that its short wait runs out. Arriving
                // by the clock alone, it could find the baton still free on a busy machine.
                awaitBatonHeld();
                return tryOnce();
            }
            if (i == workers + 1) {
                Thread.currentThread().setName("overrunner");
                baton.overrun(Duration.ofMillis(600));
                return Boolean.TRUE;
            }
            Thread.currentThread().setName("worker-" + (i + 1));
            for (int round = 0; round < rounds; round++) {
                baton.hold(work);
            }
            return Boolean.TRUE;
        });
        logger.info("Hand-off demo done; the impatient worker {}", held.get(workers) ? "got the baton" : "gave up");
        return new HandoffDemo(workers, rounds, workers * rounds, held.get(workers));
    }

    private void awaitBatonHeld() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!client.getLock(Baton.LOCK).isLocked() && System.nanoTime() < deadline) {
            Pause.of(Duration.ofMillis(5));
        }
    }

    private Boolean tryOnce() {
        try {
            baton.holdIfQuick(work);
            return Boolean.TRUE;
        } catch (LockAcquisitionException ex) {
            return Boolean.FALSE;
        }
    }

    /**
     * What ran.
     * @param workers patient workers
     * @param rounds holds per worker
     * @param holds holds of the patient workers
     * @param impatientHeld whether the impatient worker got the baton within 100 ms
     */
    record HandoffDemo(int workers, int rounds, int holds, boolean impatientHeld) {}
}
