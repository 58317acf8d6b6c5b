package dev.distlock.benchmarks;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;

/**
 * Where a benchmark fork finds Redis: the server the comparison runner started (its port in the
 * {@value #PORT_PROPERTY} system property), so every library meets the same server; else a server
 * of its own from the test fixture (loopback, no persistence), for a benchmark run by hand.
 */
final class BenchmarkServer {

    static final String PORT_PROPERTY = "distlock.bench.redis.port";
    static final String HOST = "127.0.0.1";

    private BenchmarkServer() {}

    /** @return the port of the server to use */
    static int port() {
        String port = System.getProperty(PORT_PROPERTY);
        if (port != null) {
            return Integer.parseInt(port);
        }
        RedisServer own = RedisServers.shared();
        return own.port();
    }
}
