package dev.distlock.core.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Assumptions;

/**
 * A TLS-only {@code redis-server} child process on 127.0.0.1 ({@code --port 0 --tls-port P}),
 * serving the server certificate of a {@link TestCertificates} CA. {@link #start} skips the calling
 * test, saying why, when the fixture's binary was built without TLS (the embedded Redis 6.2 is).
 */
public final class TlsRedisServer implements RedisServer {

    private static final String HOST = "127.0.0.1";

    private final Path binary;
    private final TestCertificates certificates;
    private final boolean authClients;
    private final int port;
    private final Path workDir;
    private Process process;

    private TlsRedisServer(Path binary, TestCertificates certificates, boolean authClients, int port) {
        this.binary = binary;
        this.certificates = certificates;
        this.authClients = authClients;
        this.port = port;
        try {
            this.workDir = Files.createTempDirectory("distlock-redis-tls-" + port + "-");
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Starts a TLS-only server, or skips the calling test when the binary has no TLS.
     * @param certificates the CA and server certificate to serve
     * @param authClients whether clients must present a certificate signed by the CA
     * @return the running server; the caller stops it
     */
    public static TlsRedisServer start(TestCertificates certificates, boolean authClients) {
        Optional<Path> binary = RedisBinary.find();
        Assumptions.assumeTrue(binary.isPresent(), "TLS tests need a redis-server binary");
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            TlsRedisServer server =
                    new TlsRedisServer(binary.get(), certificates, authClients, RedisServers.freePort());
            try {
                server.start();
                return server;
            } catch (IllegalStateException ex) {
                last = ex;
            }
        }
        throw last;
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    /** @return {@code rediss://host:port} */
    @Override
    public String uri() {
        return "rediss://" + HOST + ":" + port;
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
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--port",
                "0",
                "--tls-port",
                Integer.toString(port),
                "--bind",
                HOST,
                "--tls-cert-file",
                certificates.serverCertificate().toString(),
                "--tls-key-file",
                certificates.serverKey().toString(),
                "--tls-ca-cert-file",
                certificates.caCertificate().toString(),
                "--tls-auth-clients",
                authClients ? "yes" : "no",
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
        SSLContext probe = certificates.sslContext(true);
        if (ServerProcess.awaitPong(
                process, () -> RespClient.call(probe.getSocketFactory(), HOST, port, 1000, "PING"), 50)) {
            return;
        }
        if (!process.isAlive()) {
            String tail = ServerProcess.tail(log);
            // Redis built without TLS rejects the tls-* directives at startup.
            Assumptions.assumeFalse(
                    tail.contains("tls-port") || tail.contains("TLS"),
                    () -> binary + " was built without TLS ("
                            + tail.lines().reduce((a, b) -> b).orElse("")
                            + "); install a TLS build such as Debian's redis-server 7 and put it on PATH");
            throw new IllegalStateException("redis-server exited on TLS port " + port + ": " + tail);
        }
        stop();
        throw new IllegalStateException(
                "TLS redis-server did not answer PING on port " + port + ": " + ServerProcess.tail(log));
    }

    @Override
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        ServerProcess.stop(process);
        process = null;
    }

    @Override
    public void pause() {
        throw new UnsupportedOperationException("pause is not supported by the TLS fixture");
    }

    @Override
    public void resume() {
        throw new UnsupportedOperationException("resume is not supported by the TLS fixture");
    }

    @Override
    public String command(String... args) {
        return RespClient.call(certificates.sslContext(true).getSocketFactory(), HOST, port, 5000, args);
    }

    @Override
    public String toString() {
        return "TLS redis-server " + HOST + ":" + port;
    }
}
