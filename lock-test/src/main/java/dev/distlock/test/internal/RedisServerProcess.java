package dev.distlock.test.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} child process on a free port of 127.0.0.1, without persistence: found as
 * {@code DISTLOCK_REDIS_SERVER} (or the {@code distlock.test.redis-server} system property) names
 * it, else on {@code PATH}, else inside the embedded-redis jar.
 */
public final class RedisServerProcess {

    /** The value that selects the binary inside the embedded-redis jar. */
    static final String EMBEDDED = "embedded";

    private static final String HOST = "127.0.0.1";
    private static final int START_ATTEMPTS = 5;
    private static final long START_SECONDS = 15;

    private static @Nullable Path found;

    private final Path executable;
    private final int port;
    private final Path workDir;
    private final Process process;

    private RedisServerProcess(Path executable, int port, Path workDir, Process process) {
        this.executable = executable;
        this.port = port;
        this.workDir = workDir;
        this.process = process;
    }

    /**
     * Starts a server on a free port, retrying on another port when one was taken meanwhile.
     * @return the running server
     * @throws IllegalStateException if no binary runs here, or the server does not start
     */
    public static RedisServerProcess start() {
        return start(PortRange.ANY);
    }

    /**
     * Starts a server on a free port of a range, retrying on another port of it when one was taken
     * meanwhile.
     * @param ports where it may listen
     * @return the running server
     * @throws IllegalStateException if no binary runs here, no port of the range is free, or the
     *         server does not start
     */
    public static RedisServerProcess start(PortRange ports) {
        Path executable = findBinary();
        IllegalStateException last = null;
        Integer failed = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            OptionalInt port = ports.freePort(failed);
            if (port.isEmpty()) {
                throw new IllegalStateException(
                        "No free port among " + ports + " on " + HOST
                                + " for the test Redis: every one is in use. Widen @DistlockTestRedis(port = ...)"
                                + " or stop what listens there",
                        last);
            }
            try {
                return start(executable, port.getAsInt());
            } catch (IllegalStateException ex) {
                // Most likely another process took the port between the probe and the bind.
                last = ex;
                failed = port.getAsInt();
            }
        }
        throw last != null ? last : new IllegalStateException("redis-server did not start");
    }

    private static RedisServerProcess start(Path executable, int port) {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("distlock-test-redis-" + port + "-");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        Path log = workDir.resolve("redis.log");
        Process process;
        try {
            process = new ProcessBuilder(List.of(
                            executable.toString(),
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            HOST,
                            "--save",
                            "",
                            "--appendonly",
                            "no",
                            "--dir",
                            workDir.toString(),
                            "--daemonize",
                            "no"))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + executable, ex);
        }
        RedisServerProcess server = new RedisServerProcess(executable, port, workDir, process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if ("PONG".equals(Resp.call(HOST, port, "PING"))) {
                    return server;
                }
            } catch (UncheckedIOException notYet) {
                sleep(20);
            }
        }
        server.stop();
        throw new IllegalStateException(
                "redis-server (" + executable + ") did not start on port " + port + ": " + tail(log));
    }

    /** @return whether the process is alive */
    public boolean isRunning() {
        return process.isAlive();
    }

    /** @return {@code 127.0.0.1} */
    public String host() {
        return HOST;
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /** @return the binary it runs */
    public Path binary() {
        return executable;
    }

    /** Stops the process: politely, then forcibly after five seconds; and removes its directory. */
    public void stop() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(workDir)) {
            files.forEach(file -> file.toFile().delete());
            Files.deleteIfExists(workDir);
        } catch (IOException ex) {
            // A temporary directory: left for the system to clean.
        }
    }

    /**
     * Finds the binary once per JVM.
     * @return a runnable {@code redis-server}
     * @throws IllegalStateException saying how to provide one when none runs
     */
    static synchronized Path findBinary() {
        if (found == null) {
            String configured =
                    System.getProperty("distlock.test.redis-server", System.getenv("DISTLOCK_REDIS_SERVER"));
            Optional<Path> binary;
            if (EMBEDDED.equals(configured)) {
                binary = fromEmbeddedJar();
            } else if (configured != null && !configured.isBlank()) {
                binary = Optional.of(Path.of(configured)).filter(RedisServerProcess::runs);
                if (binary.isEmpty()) {
                    throw new IllegalStateException("DISTLOCK_REDIS_SERVER (or distlock.test.redis-server) names '"
                            + configured + "', which does not run as redis-server");
                }
            } else {
                binary = fromPath().or(RedisServerProcess::fromEmbeddedJar);
            }
            found = binary.orElseThrow(() -> new IllegalStateException("No redis-server for the test Redis: none on"
                    + " PATH, and the embedded-redis jar has no binary for " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch") + ". Install Redis (e.g. apt-get install redis-server, brew install"
                    + " redis) or point DISTLOCK_REDIS_SERVER at a redis-server binary"));
        }
        return found;
    }

    private static Optional<Path> fromPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate) && runs(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> fromEmbeddedJar() {
        String resource = embeddedResource();
        if (resource == null) {
            return Optional.empty();
        }
        try (InputStream in = RedisServerProcess.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path dir = Files.createTempDirectory("distlock-test-redis-bin-");
            Path target = dir.resolve(resource);
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            target.toFile().setExecutable(true);
            target.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return Optional.of(target).filter(RedisServerProcess::runs);
        } catch (IOException ex) {
            return Optional.empty();
        }
    }

    // The binaries embedded-redis 1.4.x ships, by platform.
    private static @Nullable String embeddedResource() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        return null;
    }

    private static boolean runs(Path candidate) {
        try {
            Process process = new ProcessBuilder(candidate.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException ex) {
            return false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException ex) {
            return "(no log)";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
