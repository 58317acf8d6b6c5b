package dev.distlock.test;

import dev.distlock.test.internal.PortRange;
import dev.distlock.test.internal.RedisServerProcess;
import dev.distlock.test.internal.Resp;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A throw-away Redis server for tests: a {@code redis-server} process on a free port of 127.0.0.1,
 * without persistence, that {@link DistlockTestRedis} wires into a Spring test context. Obtain it
 * as a parameter of a test or lifecycle method of a {@link DistlockTestRedis} class, or from
 * {@link #shared()}.
 */
public final class TestRedis {

    /** The servers of this JVM: the first is the one {@link #shared()} returns. */
    private static final List<TestRedis> servers = new ArrayList<>();

    private final RedisServerProcess process;

    private TestRedis(RedisServerProcess process) {
        this.process = process;
    }

    /**
     * Returns the server of this JVM, starting it on first use (and again should it have died); it
     * stops when the JVM exits.
     * @return the running server
     * @throws IllegalStateException if no {@code redis-server} binary runs on this machine, saying
     *         how to provide one
     */
    public static synchronized TestRedis shared() {
        if (servers.isEmpty() || !servers.get(0).process.isRunning()) {
            TestRedis started = start(PortRange.ANY);
            if (servers.isEmpty()) {
                servers.add(started);
            } else {
                servers.set(0, started);
            }
        }
        return servers.get(0);
    }

    /**
     * Returns a server of this JVM that listens on the given port or on a port of the given range,
     * starting one there on first use: for machines where tests may only listen on some ports.
     * @param port {@code ""} for any free port (the server of {@link #shared()}), a port
     *     ({@code "6390"}) or an inclusive range ({@code "6390-6399"})
     * @return the running server
     * @throws IllegalArgumentException if {@code port} is neither a port nor a range of ports
     * @throws IllegalStateException if no port of the range is free, or no {@code redis-server}
     *         binary runs on this machine
     */
    public static synchronized TestRedis shared(String port) {
        return shared(PortRange.parse(port, "TestRedis.shared(String)"));
    }

    private static synchronized TestRedis shared(PortRange ports) {
        if (ports.equals(PortRange.ANY)) {
            return shared();
        }
        for (TestRedis server : servers) {
            if (server.process.isRunning() && ports.contains(server.port())) {
                return server;
            }
        }
        TestRedis started = start(ports);
        servers.add(started);
        return started;
    }

    private static TestRedis start(PortRange ports) {
        RedisServerProcess process = RedisServerProcess.start(ports);
        Runtime.getRuntime().addShutdownHook(new Thread(process::stop, "distlock-test-redis-stop"));
        return new TestRedis(process);
    }

    /**
     * Returns the host the server listens on.
     * @return {@code 127.0.0.1}
     */
    public String host() {
        return process.host();
    }

    /**
     * Returns the port the server listens on.
     * @return the port
     */
    public int port() {
        return process.port();
    }

    /**
     * Returns the server's URL, as {@code distlock.redis.url} takes it.
     * @return {@code redis://127.0.0.1:<port>}
     */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /**
     * Returns the server's version, from {@code INFO server}: Valkey's own version for a Valkey
     * server, whose {@code redis_version} is the Redis version it is compatible with.
     * @return e.g. {@code 7.0.15}, {@code 6.2.6} for the embedded binary, {@code 8.1.1} for Valkey 8.1
     */
    public String version() {
        String info = command("INFO", "server");
        String version = isValkey(info) ? field(info, "valkey_version") : null;
        if (version == null) {
            version = field(info, "redis_version");
        }
        return version != null ? version : "unknown";
    }

    /**
     * Returns the server's product, from {@code INFO server}.
     * @return {@code Valkey} or {@code Redis}
     */
    public String product() {
        return isValkey(command("INFO", "server")) ? "Valkey" : "Redis";
    }

    private static boolean isValkey(@Nullable String info) {
        return "valkey".equals(field(info, "server_name"));
    }

    private static @Nullable String field(@Nullable String info, String name) {
        String prefix = name + ":";
        for (String line : info != null ? info.split("\r?\n") : new String[0]) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }

    /**
     * Sends one command and returns its reply as text: a status or bulk string as is, an integer in
     * decimal, an array as its elements on separate lines, a nil reply as {@code null}.
     * @param args the command and its arguments, e.g. {@code "EXISTS", "report"}
     * @return the reply
     * @throws IllegalStateException if Redis answers with an error
     */
    public @Nullable String command(String... args) {
        return Resp.call(host(), port(), args);
    }

    /** Deletes every key of every database ({@code FLUSHALL}). */
    public void flushAll() {
        command("FLUSHALL");
    }

    @Override
    public String toString() {
        return "TestRedis[" + uri() + ", " + process.binary() + "]";
    }
}
