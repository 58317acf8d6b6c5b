package dev.distlock.test.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The ports a test Redis may listen on, from {@code @DistlockTestRedis(port = ...)}: any free port
 * ({@code ""}), one port ({@code "6390"}) or an inclusive range ({@code "6390-6399"}).
 * @param first lowest port, or {@code 0} for any free port
 * @param last highest port, or {@code 0} for any free port
 */
public record PortRange(int first, int last) {

    /** Any free port the system hands out. */
    public static final PortRange ANY = new PortRange(0, 0);

    private static final Pattern SPEC = Pattern.compile("(\\d{1,5})(?:\\s*-\\s*(\\d{1,5}))?");

    /**
     * Reads a port attribute.
     * @param spec {@code ""}, {@code "6390"} or {@code "6390-6399"}
     * @param where what declared it, for the error message ({@code @DistlockTestRedis on ...})
     * @return the range
     * @throws IllegalArgumentException naming the attribute and what is wrong with it
     */
    public static PortRange parse(String spec, String where) {
        String trimmed = spec.strip();
        if (trimmed.isEmpty()) {
            return ANY;
        }
        Matcher matcher = SPEC.matcher(trimmed);
        if (!matcher.matches()) {
            throw invalid(spec, where, "expected a port (\"6390\") or an inclusive range (\"6390-6399\")");
        }
        int first = Integer.parseInt(matcher.group(1));
        int last = matcher.group(2) != null ? Integer.parseInt(matcher.group(2)) : first;
        if (first < 1 || last > 65535) {
            throw invalid(spec, where, "ports run from 1 to 65535");
        }
        if (first > last) {
            throw invalid(spec, where, "the range starts at " + first + ", above its end " + last);
        }
        return new PortRange(first, last);
    }

    private static IllegalArgumentException invalid(String spec, String where, String problem) {
        return new IllegalArgumentException(
                where + ": port \"" + spec + "\" is neither a port nor a range of ports: " + problem);
    }

    /**
     * Returns a port of the range that nothing listens on now, starting at a random one so that
     * JVMs sharing a range rarely probe the same port first.
     * @param except a port not to return (one that just failed), or {@code null}
     * @return the port, or empty when every port of the range is taken
     */
    OptionalInt freePort(@Nullable Integer except) {
        if (this.equals(ANY)) {
            return OptionalInt.of(anyFreePort());
        }
        int size = last - first + 1;
        int offset = ThreadLocalRandom.current().nextInt(size);
        for (int i = 0; i < size; i++) {
            int port = first + (offset + i) % size;
            if ((except == null || port != except) && isFree(port)) {
                return OptionalInt.of(port);
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Tells whether a port belongs to the range.
     * @param port the port
     * @return whether it is in the range; every port is in {@link #ANY}
     */
    public boolean contains(int port) {
        return this.equals(ANY) || (port >= first && port <= last);
    }

    @Override
    public String toString() {
        if (this.equals(ANY)) {
            return "any free port";
        }
        return first == last ? "port " + first : "ports " + first + "-" + last;
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException ex) {
            return false;
        }
    }

    private static int anyFreePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
