package dev.distlock.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts real Redis servers for tests, on free loopback ports: the {@code redis-server} binary on
 * {@code PATH} (or {@code DISTLOCK_REDIS_SERVER}), else the one shipped in the embedded-redis jar,
 * else a Testcontainers Redis when Docker is available. {@code DISTLOCK_REDIS_SERVER=embedded}
 * forces the embedded-redis binary (Redis 6.2).
 *
 * <p>{@link #shared()} is one server per JVM for ordinary tests (flush it between tests);
 * {@link #start(String...)} and {@link #start(int)} give servers the caller owns and must stop.
 */
public final class RedisServers {

    private static final int START_ATTEMPTS = 5;
    private static final Logger log = LoggerFactory.getLogger(RedisServers.class);
    private static RedisServer shared;

    private RedisServers() {}

    /**
     * Returns the JVM-wide server, starting it on first use; it stops when the JVM exits.
     * @return the shared server
     */
    public static synchronized RedisServer shared() {
        if (shared == null || !shared.isRunning()) {
            RedisServer server = start();
            if (shared == null) {
                log.info("Test servers: {}, this one at {}", server.serverName(), server.uri());
            }
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "distlock-redis-stop"));
            shared = server;
        }
        return shared;
    }

    /**
     * Starts a server the caller owns that answers {@code DEBUG} (for {@code DEBUG SLEEP}, which freezes it):
     * Redis 7 refuses the command unless enabled, Redis 6.2 has no such option.
     * @return the running server
     */
    public static RedisServer startAnsweringDebug() {
        return majorVersion() >= 7 ? start("--enable-debug-command", "yes") : start();
    }

    /**
     * Starts a server the caller owns.
     * @param extraArgs extra {@code redis-server} arguments, e.g. {@code "--cluster-enabled", "yes"}
     * @return the running server
     */
    public static RedisServer start(String... extraArgs) {
        Optional<Path> binary = RedisBinary.find();
        if (binary.isEmpty()) {
            if (ContainerRedisServer.dockerAvailable() && extraArgs.length == 0) {
                RedisServer container = new ContainerRedisServer();
                container.start();
                return container;
            }
            throw new IllegalStateException("No runnable redis-server: none on PATH, the embedded-redis binary does not"
                    + " run on " + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                    + ", and Docker is not available");
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            ProcessRedisServer server = new ProcessRedisServer(binary.get(), freePort(), List.of(extraArgs));
            try {
                server.start();
                return server;
            } catch (IllegalStateException ex) {
                // Most likely another process took the port between probe and bind.
                last = ex;
            }
        }
        throw last;
    }

    /**
     * Starts a server the caller owns on a given port, as a server stopped there restarts with other
     * settings (a restart that changes its configuration).
     * @param port the port, free now
     * @param extraArgs extra {@code redis-server} arguments
     * @return the running server
     */
    public static RedisServer startOnPort(int port, String... extraArgs) {
        Path binary = RedisBinary.find()
                .orElseThrow(
                        () -> new IllegalStateException("No runnable redis-server binary to start on port " + port));
        ProcessRedisServer server = new ProcessRedisServer(binary, port, List.of(extraArgs));
        server.start();
        return server;
    }

    /**
     * Starts {@code count} independent servers the caller owns.
     * @param count how many
     * @return the running servers
     */
    public static List<RedisServer> start(int count) {
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                servers.add(start());
            }
        } catch (RuntimeException ex) {
            servers.forEach(RedisServer::stop);
            throw ex;
        }
        return servers;
    }

    /**
     * Returns the major version of the {@code redis-server} binary the fixture starts.
     * @return e.g. {@code 6} for the embedded binary, {@code 7} for Debian's; {@code 0} when unknown
     */
    public static int majorVersion() {
        return RedisBinary.majorVersion();
    }

    /**
     * Skips the calling test unless the fixture starts Redis 7 or later (sharded pub/sub, ACL
     * selectors, TLS builds), saying how to run it.
     * @param feature what needs Redis 7, for the skip message
     */
    public static void assumeRedis7(String feature) {
        int version = majorVersion();
        Assumptions.assumeTrue(
                version >= 7,
                () -> feature + " needs Redis 7 or later, but the fixture's redis-server is "
                        + (version == 0 ? "unknown" : "Redis " + version) + ". Install Redis 7 (Debian: apt-get install"
                        + " redis-server) and put it on PATH, or point DISTLOCK_REDIS_SERVER at its redis-server binary.");
    }

    /**
     * Returns a port that was free on 127.0.0.1 a moment ago.
     * @return a port number
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
