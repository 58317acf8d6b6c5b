package dev.distlock.test.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * One Redis command over a fresh socket, in RESP2: enough for a test's checks and for waiting until
 * a new server answers, without a client library's connection pool or event loop.
 */
public final class Resp {

    private static final int TIMEOUT_MILLIS = 5_000;

    private Resp() {}

    /**
     * Sends a command and reads its reply as text.
     * @param host server host
     * @param port server port
     * @param args the command and its arguments
     * @return the reply, {@code null} for nil
     * @throws UncheckedIOException if the server cannot be reached
     * @throws IllegalStateException if the server answers with an error
     */
    public static @Nullable String call(String host, int port, String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException ex) {
            throw new UncheckedIOException("Redis at " + host + ":" + port + " did not answer " + args[0], ex);
        }
    }

    private static byte[] encode(String... args) {
        StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            command.append('$')
                    .append(arg.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(arg)
                    .append("\r\n");
        }
        return command.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static @Nullable String read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+', ':':
                return line;
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                StringJoiner elements = new StringJoiner("\n");
                for (int i = 0; i < count; i++) {
                    String element = read(in);
                    elements.add(element != null ? element : "(nil)");
                }
                return elements.toString();
            }
            default:
                throw new IOException("Unexpected RESP reply type '" + (char) type + "'");
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int previous = -1;
        int next;
        while ((next = in.read()) != -1) {
            if (previous == '\r' && next == '\n') {
                byte[] bytes = buffer.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            buffer.write(next);
            previous = next;
        }
        throw new IOException("Connection closed in the middle of a reply");
    }
}
