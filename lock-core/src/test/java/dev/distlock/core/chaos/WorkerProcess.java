package dev.distlock.core.chaos;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client JVM running {@link ChaosWorkerMain} (the pattern of {@code faults.ChildJvm}): its
 * {@code CHAOS ...} lines are protocol, everything it prints also goes to {@code <jvm>.out} in the
 * run directory. Closing it resumes (SIGCONT) and kills the process if it is still alive.
 */
final class WorkerProcess implements AutoCloseable {

    private final String jvm;
    private final Process process;
    private final PrintWriter stdin;
    private final BlockingQueue<String> protocol = new LinkedBlockingQueue<>();

    private WorkerProcess(String jvm, Process process, Path log) {
        this.jvm = jvm;
        this.process = process;
        this.stdin = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> pump(log), "chaos-reader-" + jvm);
        reader.setDaemon(true);
        reader.start();
    }

    static WorkerProcess start(String jvm, Path properties, Path dir) {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                ChaosWorkerMain.class.getName(),
                properties.toString());
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            return new WorkerProcess(jvm, process, dir.resolve(jvm + ".out"));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void pump(Path log) {
        try (BufferedReader out =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                BufferedWriter file = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = out.readLine()) != null) {
                file.write(line);
                file.newLine();
                file.flush();
                if (line.startsWith("CHAOS ")) {
                    protocol.add(line.substring(6));
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    String jvm() {
        return jvm;
    }

    /**
     * Waits for the next protocol line starting with {@code word}.
     * @return the rest of the line
     */
    String expect(String word, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            String line = protocol.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(word)) {
                return line.substring(word.length()).trim();
            }
            if (!process.isAlive() && protocol.isEmpty()) {
                break;
            }
        }
        throw new IllegalStateException("client JVM " + jvm + " did not report " + word + " within " + timeoutSeconds
                + " s (alive: " + process.isAlive() + "); see " + jvm + ".out in the run directory");
    }

    void send(String line) {
        stdin.println(line);
    }

    void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    boolean waitForExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            signal("CONT");
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
