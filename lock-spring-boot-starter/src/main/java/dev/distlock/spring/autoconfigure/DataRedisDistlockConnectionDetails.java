package dev.distlock.spring.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * {@link DistlockConnectionDetails} adapted from Spring Boot's {@link DataRedisConnectionDetails}
 * ({@code spring.data.redis.*}, a Testcontainers {@code @ServiceConnection} or Docker Compose).
 * Only loaded when spring-boot-data-redis is on the classpath.
 */
final class DataRedisDistlockConnectionDetails implements DistlockConnectionDetails, ConnectionSource {

    private final DataRedisConnectionDetails details;
    private final boolean urlUsesSsl;

    /**
     * @param details Boot's connection details
     * @param urlUsesSsl whether {@code spring.data.redis.url} is a {@code rediss://} URL: Boot's
     * properties-backed details report TLS only for {@code spring.data.redis.ssl.*}, and Boot's own
     * Lettuce configuration reads the URL's scheme separately
     */
    DataRedisDistlockConnectionDetails(DataRedisConnectionDetails details, boolean urlUsesSsl) {
        this.details = details;
        this.urlUsesSsl = urlUsesSsl;
        if (details.getMasterReplica() != null && details.getSentinel() == null && details.getCluster() == null) {
            throw new IllegalStateException("Spring Boot's Redis connection is a static master/replica setup"
                    + " (spring.data.redis.masterreplica.nodes), which Distlock does not support: locks must be taken"
                    + " on the master. Set distlock.redis.url to the master, or use Sentinel or Cluster.");
        }
    }

    @Override
    public String source() {
        // Boot's own adapter of spring.data.redis.*; anything else is a service connection or a bean.
        return details.getClass().getSimpleName().equals("PropertiesDataRedisConnectionDetails")
                ? "spring.data.redis.* (Spring Boot's DataRedisConnectionDetails)"
                : "Spring Boot's DataRedisConnectionDetails "
                        + details.getClass().getName();
    }

    @Override
    public @Nullable String getUsername() {
        return details.getUsername();
    }

    @Override
    public @Nullable String getPassword() {
        return details.getPassword();
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
        SslBundle bundle = details.getSslBundle();
        return bundle != null ? bundle : (urlUsesSsl ? SslBundle.systemDefault() : null);
    }

    @Override
    public Standalone getStandalone() {
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return standalone != null
                ? Standalone.of(standalone.getHost(), standalone.getPort(), standalone.getDatabase())
                : DistlockConnectionDetails.super.getStandalone();
    }

    @Override
    public @Nullable Sentinel getSentinel() {
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel == null) {
            return null;
        }
        List<Node> nodes = nodes(sentinel.getNodes());
        return Sentinel.of(
                sentinel.getMaster(), nodes, sentinel.getDatabase(), sentinel.getUsername(), sentinel.getPassword());
    }

    @Override
    public @Nullable Cluster getCluster() {
        DataRedisConnectionDetails.Cluster cluster = details.getCluster();
        if (cluster == null) {
            return null;
        }
        List<Node> nodes = nodes(cluster.getNodes());
        return () -> nodes;
    }

    private static List<Node> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(node -> new Node(node.host(), node.port())).toList();
    }
}
