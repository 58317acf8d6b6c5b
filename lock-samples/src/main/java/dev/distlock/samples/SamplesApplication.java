package dev.distlock.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A web app with one small service per lock kind, a contention demo and a live page at {@code /}.
 * Starts its own Redis when none is configured (see {@link dev.distlock.samples.redis.EmbeddedRedisInitializer}).
 */
@SpringBootApplication
@EnableScheduling
public class SamplesApplication {

    /**
     * Starts the sample.
     * @param args command line arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(SamplesApplication.class, args);
    }
}
