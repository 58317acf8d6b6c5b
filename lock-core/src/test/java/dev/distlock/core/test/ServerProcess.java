package dev.distlock.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The life of one {@code redis-server} child process of the fixture: started with its output
 * appended to a log file, awaited until it answers {@code PING}, and stopped for sure.
 */
final class ServerProcess {

    private static final long START_SECONDS = 15;

    private ServerProcess() {}

    /**
     * Starts the command with its output appended to the log.
     * @throws UncheckedIOException if the binary cannot be started
     */
    static Process launch(List<String> command, Path log) {
        try {
            return new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + command.get(0), ex);
        }
    }

    /**
     * Waits until {@code ping} answers {@code PONG}.
     * @return {@code true} once it does; {@code false} when the process exited or did not answer in time
     */
    static boolean awaitPong(Process process, Supplier<String> ping, long pollMillis) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if ("PONG".equals(ping.get())) {
                    return true;
                }
            } catch (UncheckedIOException notYet) {
                sleepQuietly(pollMillis);
            }
        }
        return false;
    }

    /** Stops the process: politely, then forcibly after five seconds. */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** @return the last ten lines of the log, for a failure message */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException ex) {
            return "(no log)";
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
