package dev.distlock.core.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Thread names of this JVM, minus bounded pools whose size legitimately varies (Lettuce's and
 * Netty's event loops and timers, Reactor's schedulers, the common fork-join pool), for a before/after leak check.
 */
final class ThreadCensus {

    private static final Pattern BOUNDED_POOLS = Pattern.compile(
            "lettuce-.*|.*[Ee]ventLoop.*|.*eventExecutor.*|ForkJoinPool.*|parallel-\\d+|boundedElastic-\\d+|single-\\d+"
                    + "|Attach Listener|process reaper|chaos-handoff");

    private ThreadCensus() {}

    static List<String> names() {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && !BOUNDED_POOLS.matcher(thread.getName()).matches()) {
                names.add(thread.getName());
            }
        }
        names.sort(null);
        return names;
    }

    /**
     * Waits up to {@code settle} for the threads to be back to {@code baseline}.
     * @return the extra thread names, comma-separated, or {@code -} when none
     */
    static String leakedSince(List<String> baseline, Duration settle) throws InterruptedException {
        long deadline = System.nanoTime() + settle.toNanos();
        while (true) {
            List<String> extra = new ArrayList<>(names());
            baseline.forEach(extra::remove);
            if (extra.isEmpty()) {
                return "-";
            }
            if (System.nanoTime() > deadline) {
                return String.join(",", extra).replace(' ', '_');
            }
            Thread.sleep(200);
        }
    }
}
