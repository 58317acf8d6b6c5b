package dev.distlock.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@code redis-server} child process bound to 127.0.0.1, without persistence. */
final class ProcessRedisServer implements RedisServer {

    private static final String HOST = "127.0.0.1";

    private final Path binary;
    private final int port;
    private final List<String> extraArgs;
    private final Path workDir;
    private Process process;

    ProcessRedisServer(Path binary, int port, List<String> extraArgs) {
        this.binary = binary;
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        try {
            this.workDir = Files.createTempDirectory("distlock-redis-" + port + "-");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    /** @return the server's working directory (cluster and sentinel config files live here) */
    Path workDir() {
        return workDir;
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(extraArgs);
        command.addAll(List.of(
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
                "no"));
        Path log = workDir.resolve("redis.log");
        process = ServerProcess.launch(command, log);
        if (ServerProcess.awaitPong(process, () -> RespClient.call(HOST, port, 500, "PING"), 20)) {
            return;
        }
        if (!process.isAlive()) {
            throw new IllegalStateException("redis-server exited on port " + port + ": " + ServerProcess.tail(log));
        }
        stop();
        throw new IllegalStateException(
                "redis-server did not answer PING on port " + port + ": " + ServerProcess.tail(log));
    }

    @Override
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        resume();
        ServerProcess.stop(process);
        process = null;
    }

    @Override
    public synchronized void pause() {
        signal("STOP");
    }

    @Override
    public synchronized void resume() {
        signal("CONT");
    }

    /** @return the process id, for kill-based fault tests */
    synchronized long pid() {
        return process.pid();
    }

    @Override
    public String command(String... args) {
        return RespClient.call(HOST, port, 5000, args);
    }

    private void signal(String signal) {
        if (!isRunning()) {
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

    @Override
    public String toString() {
        return "redis-server " + HOST + ":" + port;
    }
}
