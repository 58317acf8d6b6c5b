package dev.distlock.samples.contention;

import dev.distlock.samples.Concurrently;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The contention demo: the same workers, with and without the lock.
 */
@RestController
@RequestMapping("/api/demo")
class ContentionController {

    private final Counter counter;

    ContentionController(Counter counter) {
        this.counter = counter;
    }

    /** {@code workers} workers each increment both counters {@code increments} times. */
    @PostMapping("/contention")
    ContentionDemo demo(
            @RequestParam(defaultValue = "8") int workers, @RequestParam(defaultValue = "25") int increments) {
        if (increments < 1 || increments > 1000) {
            throw new IllegalArgumentException("'increments' must be between 1 and 1000, was " + increments);
        }
        synchronized (this) {
            counter.reset();
            long expected = (long) workers * increments;
            Run withoutLock = run(workers, increments, false, expected);
            Run withLock = run(workers, increments, true, expected);
            return new ContentionDemo(workers, increments, withLock, withoutLock);
        }
    }

    private Run run(int workers, int increments, boolean lock, long expected) {
        long start = System.nanoTime();
        Concurrently.run(workers, i -> {
            for (int n = 0; n < increments; n++) {
                if (lock) {
                    counter.incrementLocked();
                } else {
                    counter.incrementUnlocked();
                }
            }
            return Boolean.TRUE;
        });
        long millis = (System.nanoTime() - start) / 1_000_000;
        long actual = lock ? counter.locked() : counter.unlocked();
        return new Run(expected, actual, expected - actual, millis);
    }

    record ContentionDemo(int workers, int increments, Run withLock, Run withoutLock) {}

    record Run(long expected, long actual, long lostUpdates, long millis) {}
}
