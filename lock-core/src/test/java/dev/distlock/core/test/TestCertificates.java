package dev.distlock.core.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assumptions;

/**
 * A private certificate authority made for one test run with the {@code openssl} command: a CA, a
 * server certificate for {@code localhost} and {@code 127.0.0.1}, and a client certificate, all PEM
 * files in a temporary directory, plus the client's key and certificate as a PKCS#12 key store
 * (password {@link #PASSWORD}) for JDK clients.
 */
public final class TestCertificates {

    /** Password of {@link #clientKeyStore()}. */
    public static final String PASSWORD = "changeit";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Makes a fresh CA and certificates, skipping the calling test when {@code openssl} cannot run.
     * @return the certificates
     */
    public static TestCertificates create() {
        try {
            Path dir = Files.createTempDirectory("distlock-tls-");
            Assumptions.assumeTrue(run(dir, "openssl", "version"), "TLS tests need the openssl command on PATH");
            Files.writeString(dir.resolve("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
            Files.writeString(dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
            require(
                    dir,
                    "openssl",
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.crt",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=Distlock Test CA");
            for (String name : List.of("server", "client")) {
                require(
                        dir,
                        "openssl",
                        "req",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-keyout",
                        name + ".key",
                        "-out",
                        name + ".csr",
                        "-subj",
                        "/CN=" + (name.equals("server") ? "localhost" : "distlock-client"));
                require(
                        dir,
                        "openssl",
                        "x509",
                        "-req",
                        "-in",
                        name + ".csr",
                        "-CA",
                        "ca.crt",
                        "-CAkey",
                        "ca.key",
                        "-CAcreateserial",
                        "-out",
                        name + ".crt",
                        "-days",
                        "2",
                        "-extfile",
                        name + ".ext");
            }
            require(
                    dir,
                    "openssl",
                    "pkcs12",
                    "-export",
                    "-in",
                    "client.crt",
                    "-inkey",
                    "client.key",
                    "-out",
                    "client.p12",
                    "-passout",
                    "pass:" + PASSWORD,
                    "-name",
                    "client");
            return new TestCertificates(dir);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the CA certificate (PEM) */
    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    /** @return the server certificate (PEM), for {@code localhost} and {@code 127.0.0.1} */
    public Path serverCertificate() {
        return dir.resolve("server.crt");
    }

    /** @return the server's private key (PEM) */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** @return the client certificate (PEM) */
    public Path clientCertificate() {
        return dir.resolve("client.crt");
    }

    /** @return the client's private key (PEM, unencrypted PKCS#8) */
    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** @return the client's key and certificate as PKCS#12, password {@link #PASSWORD} */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    /**
     * Returns a JDK TLS context that trusts only this CA.
     * @param withClientCertificate whether to present the client certificate
     * @return the context
     */
    public SSLContext sslContext(boolean withClientCertificate) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(caCertificate())) {
                trust.setCertificateEntry(
                        "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            TrustManagerFactory trustManagers =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (withClientCertificate) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(clientKeyStore())) {
                    keys.load(in, PASSWORD.toCharArray());
                }
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keys, PASSWORD.toCharArray());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    keyManagers != null ? keyManagers.getKeyManagers() : null, trustManagers.getTrustManagers(), null);
            return context;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("Cannot build a TLS context from " + dir, ex);
        }
    }

    private static void require(Path dir, String... command) {
        if (!run(dir, command)) {
            throw new IllegalStateException("Command failed in " + dir + ": " + String.join(" ", command));
        }
    }

    private static boolean run(Path dir, String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        try {
            Process process = new ProcessBuilder(args)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean ok = process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
            if (!ok) {
                Files.writeString(dir.resolve("openssl-error.log"), output);
            }
            return ok;
        } catch (IOException ex) {
            return false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
