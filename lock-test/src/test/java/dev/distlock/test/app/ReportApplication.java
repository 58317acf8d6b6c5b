package dev.distlock.test.app;

import dev.distlock.spring.DistributedLock;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** An application as its users write it: a locked job, configured for a Redis that is not there. */
@SpringBootApplication
public class ReportApplication {

    /** The locked job. */
    @Service
    public static class ReportService {

        /**
         * Runs the probe while holding the lock {@code report}.
         * @param probe what to run under the lock
         * @param <T> its result type
         * @return what it returned
         */
        @DistributedLock(name = "report", waitTime = "0")
        public <T> T run(Supplier<T> probe) {
            return probe.get();
        }
    }
}
