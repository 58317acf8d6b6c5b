package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClientOptions;
import io.lettuce.core.SslOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;

/**
 * Applies {@link DistlockConnectionDetails} to {@link LockClientOptions}: the topology, the
 * credentials and database of the data nodes, and TLS with the bundle's trust and key material.
 */
final class DistlockConnections {

    private DistlockConnections() {}

    /**
     * Sets the topology, credentials, database and TLS of the main client.
     * @param builder options builder
     * @param details where to connect
     */
    static void apply(LockClientOptions.Builder builder, DistlockConnectionDetails details) {
        SslBundle bundle = details.getSslBundle();
        boolean tls = bundle != null;
        DistlockConnectionDetails.Sentinel sentinel = details.getSentinel();
        DistlockConnectionDetails.Cluster cluster = details.getCluster();
        if (sentinel != null) {
            // Sentinels authenticate with their own credentials, which core takes only in their URIs.
            String userInfo = userInfo(sentinel.getUsername(), sentinel.getPassword());
            builder.sentinel(sentinel.getMaster(), uris(sentinel.getNodes(), userInfo, tls));
            builder.database(sentinel.getDatabase());
        } else if (cluster != null) {
            builder.cluster(uris(cluster.getNodes(), null, tls));
        } else {
            DistlockConnectionDetails.Standalone standalone = details.getStandalone();
            builder.uri(uri(standalone.getHost(), standalone.getPort(), null, tls)
                    + (standalone.getDatabase() != 0 ? "/" + standalone.getDatabase() : ""));
        }
        applyCredentialsAndTls(builder, details);
    }

    /**
     * Sets the credentials and TLS of the data nodes, for clients whose topology is set elsewhere
     * (red-lock nodes); a node URI with its own credentials keeps them.
     * @param builder options builder
     * @param details connection details of the main client
     */
    static void applyCredentialsAndTls(LockClientOptions.Builder builder, DistlockConnectionDetails details) {
        if (details.getPassword() != null) {
            builder.credentials(details.getUsername(), details.getPassword());
        }
        SslBundle bundle = details.getSslBundle();
        if (bundle != null) {
            builder.ssl(lettuceSslOptions(bundle));
        }
    }

    /**
     * Turns a Spring Boot SSL bundle into Lettuce's TLS options, as Spring Boot's own Lettuce
     * configuration does: the bundle's key and trust managers, protocols and ciphers.
     * @param bundle the bundle
     * @return Lettuce's options
     */
    static SslOptions lettuceSslOptions(SslBundle bundle) {
        SslOptions.Builder builder = SslOptions.builder()
                .keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory());
        org.springframework.boot.ssl.SslOptions options = bundle.getOptions();
        if (options.getCiphers() != null) {
            builder.cipherSuites(options.getCiphers());
        }
        if (options.getEnabledProtocols() != null) {
            builder.protocols(options.getEnabledProtocols());
        }
        return builder.build();
    }

    private static String[] uris(List<DistlockConnectionDetails.Node> nodes, @Nullable String userInfo, boolean tls) {
        return nodes.stream()
                .map(node -> uri(node.host(), node.port(), userInfo, tls))
                .toArray(String[]::new);
    }

    private static String uri(String host, int port, @Nullable String userInfo, boolean tls) {
        String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return (tls ? "rediss://" : "redis://") + (userInfo != null ? userInfo + "@" : "") + hostPart + ":" + port;
    }

    private static @Nullable String userInfo(@Nullable String username, @Nullable String password) {
        if (password == null) {
            return null;
        }
        return (username != null ? encode(username) : "") + ":" + encode(password);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
