package dev.distlock.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny blocking RESP client for the measurements the libraries under test must not do
 * themselves: {@code INFO} snapshots, {@code FLUSHALL} and {@code MONITOR}. Not thread-safe.
 */
final class RedisAdmin implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RedisAdmin(String host, int port) {
        try {
            this.socket = new Socket();
            this.socket.connect(new InetSocketAddress(host, port), 5000);
            this.socket.setSoTimeout(30_000);
            this.socket.setTcpNoDelay(true);
            this.in = new BufferedInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        } catch (IOException ex) {
            throw new UncheckedIOException("Cannot connect to Redis at " + host + ":" + port, ex);
        }
    }

    /**
     * Sends a command and returns its reply flattened to text (arrays joined by newlines).
     * @param args command and arguments
     * @return the reply
     */
    String command(String... args) {
        send(args);
        return readReply();
    }

    /** @return counters from {@code INFO commandstats}, {@code INFO stats} and {@code INFO cpu}, without this connection's INFO calls */
    RedisStats stats() {
        return RedisStats.parse(
                command("INFO", "commandstats") + "\n" + command("INFO", "stats") + "\n" + command("INFO", "cpu"));
    }

    void send(String... args) {
        StringBuilder frame = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            frame.append('$')
                    .append(arg.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(arg)
                    .append("\r\n");
        }
        try {
            out.write(frame.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the next line the server sent, without CRLF (for {@code MONITOR} output) */
    String readLine() {
        try {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\r') {
                    in.read();
                    return line.toString();
                }
                line.append((char) c);
            }
            throw new IOException("connection closed");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    String readReply() {
        String line = readLine();
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+', ':':
                return rest;
            case '-':
                throw new IllegalStateException("Redis error: " + rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return "";
                }
                try {
                    byte[] bytes = in.readNBytes(length + 2);
                    return new String(bytes, 0, length, StandardCharsets.UTF_8);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }
            case '*': {
                int count = Integer.parseInt(rest);
                List<String> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(readReply());
                }
                return String.join("\n", items);
            }
            default:
                throw new IllegalStateException("Unexpected RESP reply: " + line);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a measurement socket cannot affect the results.
        }
    }
}
