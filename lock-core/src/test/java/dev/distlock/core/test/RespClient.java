package dev.distlock.core.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A minimal RESP client for the fixture's own readiness checks and admin commands. */
final class RespClient {

    private RespClient() {}

    static String call(String host, int port, int timeoutMillis, String... args) {
        return call(javax.net.SocketFactory.getDefault(), host, port, timeoutMillis, args);
    }

    static String call(javax.net.SocketFactory sockets, String host, int port, int timeoutMillis, String... args) {
        try (Socket socket = sockets.createSocket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$')
                        .append(bytes.length)
                        .append("\r\n")
                        .append(arg)
                        .append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            return readReply(in);
        } catch (IOException ex) {
            throw new UncheckedIOException("Redis at " + host + ":" + port + " did not answer " + args[0], ex);
        }
    }

    private static String readReply(BufferedReader in) throws IOException {
        String line = in.readLine();
        if (line == null) {
            throw new IOException("connection closed");
        }
        switch (line.charAt(0)) {
            case '$': {
                int length = Integer.parseInt(line.substring(1));
                if (length < 0) {
                    return "(nil)";
                }
                char[] buffer = new char[length + 2];
                int read = 0;
                while (read < buffer.length) {
                    int n = in.read(buffer, read, buffer.length - read);
                    if (n < 0) {
                        throw new IOException("connection closed");
                    }
                    read += n;
                }
                return new String(buffer, 0, length);
            }
            case '*': {
                int count = Integer.parseInt(line.substring(1));
                StringBuilder all = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    all.append(i == 0 ? "" : "\n").append(readReply(in));
                }
                return all.toString();
            }
            default:
                return line.substring(1);
        }
    }
}
