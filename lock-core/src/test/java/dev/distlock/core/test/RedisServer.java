package dev.distlock.core.test;

/**
 * One Redis server started for tests, on a loopback address. Stop it (or close it) when done.
 */
public interface RedisServer extends AutoCloseable {

    /** @return host to connect to (a loopback address) */
    String host();

    /** @return port the server listens on; stable across {@link #restart()} */
    int port();

    /** @return {@code redis://host:port} */
    default String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** @return whether the server process is running */
    boolean isRunning();

    /** Starts the server again after {@link #stop()}, on the same port, with an empty data set. */
    void start();

    /** Stops the server; a no-op when it is not running. */
    void stop();

    /** Stops and starts the server (its data is lost: no persistence). */
    default void restart() {
        stop();
        start();
    }

    /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
    void pause();

    /** Thaws a paused process (SIGCONT). */
    void resume();

    /**
     * Runs a command through {@code redis-cli}-free raw RESP and returns the raw reply.
     * @param args command and arguments
     * @return the reply line(s)
     */
    String command(String... args);

    /**
     * Names the server's product and version from {@code INFO server}. Valkey reports
     * {@code server_name:valkey} and its own {@code valkey_version}; its {@code redis_version} is the
     * Redis version it is compatible with (7.2.4 for Valkey 8), so it is not the one to show.
     * @return e.g. {@code Redis 7.0.15} or {@code Valkey 8.1.1}
     */
    default String serverName() {
        String info = command("INFO", "server");
        String valkey = InfoFields.field(info, "valkey_version");
        if ("valkey".equals(InfoFields.field(info, "server_name")) && valkey != null) {
            return "Valkey " + valkey;
        }
        String redis = InfoFields.field(info, "redis_version");
        return "Redis " + (redis != null ? redis : "(unknown version)");
    }

    @Override
    default void close() {
        stop();
    }
}
