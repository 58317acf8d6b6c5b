package dev.distlock.spring.integration;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A second JVM running a main class of the test class path, read line by line; killed with SIGKILL. */
final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readLines, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass.getName()));
        command.addAll(List.of(args));
        try {
            return new ChildJvm(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void readLines() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
            }
        } catch (IOException ended) {
            // The process is gone.
        }
    }

    /**
     * Waits for a line starting with {@code prefix}, skipping others (log lines).
     * @return the rest of the line
     */
    String expect(String prefix, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        List<String> skipped = new ArrayList<>();
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            String line = lines.poll(left, TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            if (line != null) {
                skipped.add(line);
            }
        }
        throw new AssertionError("The child printed no '" + prefix + "' within " + timeoutSeconds + " s: " + skipped);
    }

    /** Kills the process with SIGKILL and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("The child did not die within 10 s of SIGKILL");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
