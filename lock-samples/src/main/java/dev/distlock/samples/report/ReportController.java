package dev.distlock.samples.report;

import dev.distlock.samples.Concurrently;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Report job statistics and the many-instances demo.
 */
@RestController
@RequestMapping("/api")
class ReportController {

    private final ReportJob job;

    ReportController(ReportJob job) {
        this.job = job;
    }

    @GetMapping("/report-job")
    ReportJob.Stats stats() {
        return job.stats();
    }

    /** {@code instances} simulated instances hit the same tick at once; one runs the report. */
    @PostMapping("/demo/report-job")
    ReportDemo demo(@RequestParam(defaultValue = "4") int instances) {
        List<Boolean> ran = Concurrently.run(instances, i -> job.run("instance-" + (i + 1)));
        long runs = ran.stream().filter(r -> r).count();
        return new ReportDemo(instances, runs, instances - runs, job.stats());
    }

    record ReportDemo(int instances, long ran, long skipped, ReportJob.Stats totals) {}
}
