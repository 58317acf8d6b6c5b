package dev.distlock.core.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM running a main class from the test class path, talked to line by line over its
 * standard streams. Used to kill (SIGKILL) or freeze (SIGSTOP) a real lock holder.
 */
final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final PrintWriter stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process) {
        this.process = process;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = out.readLine()) != null) {
                            lines.add(line);
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                },
                "child-jvm-reader");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try {
            return new ChildJvm(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Waits for the next output line starting with {@code prefix}, skipping log lines. */
    String expect(String prefix, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        List<String> skipped = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            if (line != null) {
                skipped.add(line);
            }
        }
        throw new AssertionError(
                "child printed no '" + prefix + "' within " + timeoutSeconds + " s; output: " + skipped);
    }

    /**
     * Waits for the next output line starting with {@code prefix} for as long as {@code progress}
     * moves: the child does a fixed amount of work, which a busy machine does slowly, not wrongly.
     */
    String expectWhileProgressing(String prefix, java.util.function.LongSupplier progress, java.time.Duration stall)
            throws InterruptedException {
        java.util.concurrent.CompletableFuture<String> line = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try {
                        line.complete(expect(prefix, TimeUnit.DAYS.toSeconds(1)));
                    } catch (Throwable ex) {
                        line.completeExceptionally(ex);
                    }
                },
                "child-jvm-expect");
        reader.setDaemon(true);
        reader.start();
        try {
            return dev.distlock.core.test.Progress.await("child waiting for '" + prefix + "'", line, progress, stall);
        } catch (java.util.concurrent.ExecutionException ex) {
            throw new AssertionError(ex.getCause());
        } finally {
            reader.interrupt();
        }
    }

    void send(String line) {
        stdin.println(line);
    }

    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    void signal(String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .start()
                .waitFor(5, TimeUnit.SECONDS);
    }

    boolean waitForExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            signalQuietly("CONT");
            kill();
        }
    }

    private void signalQuietly(String signal) {
        try {
            signal(signal);
        } catch (IOException | InterruptedException ignored) {
            // best effort before the kill
        }
    }
}
