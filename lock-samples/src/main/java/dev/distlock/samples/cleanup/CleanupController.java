package dev.distlock.samples.cleanup;

import dev.distlock.samples.Concurrently;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Clean-up job statistics and the many-instances demo.
 */
@RestController
@RequestMapping("/api")
class CleanupController {

    private final CleanupJob job;

    CleanupController(CleanupJob job) {
        this.job = job;
    }

    @GetMapping("/cleanup-job")
    CleanupJob.Stats stats() {
        return job.stats();
    }

    /** {@code instances} simulated instances hit the same tick at once; ShedLock lets one run it. */
    @PostMapping("/demo/cleanup-job")
    CleanupDemo demo(@RequestParam(defaultValue = "4") int instances) {
        List<Boolean> ran = Concurrently.run(instances, i -> job.cleanUp() != null);
        long runs = ran.stream().filter(r -> r).count();
        return new CleanupDemo(instances, runs, instances - runs, job.stats());
    }

    record CleanupDemo(int instances, long ran, long skipped, CleanupJob.Stats totals) {}
}
