package dev.distlock.samples.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import redis.embedded.RedisServer;

/**
 * A {@code redis-server} process started from the binary shipped in the embedded-redis jar, bound
 * to a free loopback port, with persistence off.
 */
public final class EmbeddedRedis implements DisposableBean {

    private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedis.class);

    private static final String HOST = "127.0.0.1";

    private static final int START_ATTEMPTS = 3;

    private final RedisServer server;

    private final int port;

    private EmbeddedRedis(RedisServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts a server on a free port.
     * @return the running server
     */
    public static EmbeddedRedis start() {
        IOException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = freePort();
            try {
                RedisServer server = RedisServer.newRedisServer()
                        .bind(HOST)
                        .port(port)
                        .setting("save \"\"")
                        .setting("appendonly no")
                        .build();
                server.start();
                logger.info("Started embedded Redis on {}:{}", HOST, port);
                return new EmbeddedRedis(server, port);
            } catch (IOException ex) {
                // Most likely another process took the port between the probe and the bind.
                last = ex;
            }
        }
        throw new UncheckedIOException("Could not start the embedded Redis", last);
    }

    /**
     * Returns the port the server listens on.
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * Returns the server's URL.
     * @return {@code redis://127.0.0.1:<port>}
     */
    public String url() {
        return "redis://" + HOST + ":" + port;
    }

    /**
     * Returns whether the process is running.
     * @return whether running
     */
    public boolean isRunning() {
        return server.isActive();
    }

    /**
     * Stops the server.
     */
    @Override
    public void destroy() {
        try {
            server.stop();
            logger.info("Stopped embedded Redis on {}:{}", HOST, port);
        } catch (IOException ex) {
            logger.warn("Could not stop the embedded Redis on {}:{}", HOST, port, ex);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
