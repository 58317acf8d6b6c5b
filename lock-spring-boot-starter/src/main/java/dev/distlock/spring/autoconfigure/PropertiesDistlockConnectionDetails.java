package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.config.DistlockStartupException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * {@link DistlockConnectionDetails} from {@code distlock.redis.*}: the URL (or Sentinel, or Cluster)
 * with the username, password, database and TLS overrides applied. Without a URL it is
 * {@code redis://localhost:6379}. Also reads {@code spring.data.redis.*} when spring-data-redis is
 * not there to ({@link SpringDataRedisSettings}), naming those properties in its errors.
 */
final class PropertiesDistlockConnectionDetails implements DistlockConnectionDetails, ConnectionSource {

    private final DistlockProperties.Redis redis;
    private final @Nullable SslBundles sslBundles;
    private final String prefix;
    private final @Nullable ParsedUrl url;

    PropertiesDistlockConnectionDetails(DistlockProperties.Redis redis, @Nullable SslBundles sslBundles) {
        this(redis, sslBundles, "distlock.redis");
    }

    /**
     * @param redis the settings
     * @param sslBundles the SSL bundles, if any
     * @param prefix the properties the settings came from, for messages
     */
    PropertiesDistlockConnectionDetails(
            DistlockProperties.Redis redis, @Nullable SslBundles sslBundles, String prefix) {
        this.redis = redis;
        this.sslBundles = sslBundles;
        this.prefix = prefix;
        this.url = StringUtils.hasText(redis.getUrl()) ? ParsedUrl.parse(redis.getUrl(), prefix + ".url") : null;
    }

    @Override
    public String source() {
        if (StringUtils.hasText(redis.getSentinel().getMaster())) {
            return prefix + ".sentinel.*";
        }
        if (!redis.getCluster().getNodes().isEmpty()) {
            return prefix + ".cluster.nodes";
        }
        if (prefix.equals("spring.data.redis")) {
            return "spring.data.redis.*";
        }
        return url != null ? prefix + ".url" : "the default (neither distlock.redis.* nor spring.data.redis.* is set)";
    }

    /** Whether {@code distlock.redis.*} names a connection (URL, Sentinel or Cluster). */
    static boolean isConnectionSet(DistlockProperties.Redis redis) {
        return StringUtils.hasText(redis.getUrl())
                || StringUtils.hasText(redis.getSentinel().getMaster())
                || !redis.getCluster().getNodes().isEmpty();
    }

    @Override
    public @Nullable String getUsername() {
        return redis.getUsername() != null ? redis.getUsername() : (url != null ? url.username : null);
    }

    @Override
    public @Nullable String getPassword() {
        return redis.getPassword() != null ? redis.getPassword() : (url != null ? url.password : null);
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
        DistlockProperties.Ssl ssl = redis.getSsl();
        boolean enabled = ssl.getEnabled() != null
                ? ssl.getEnabled()
                : StringUtils.hasText(ssl.getBundle()) || (url != null && url.ssl) || nodesUseTls();
        if (!enabled) {
            return null;
        }
        if (!StringUtils.hasText(ssl.getBundle())) {
            return SslBundle.systemDefault();
        }
        if (sslBundles == null) {
            throw new IllegalStateException(prefix + ".ssl.bundle is set to '" + ssl.getBundle()
                    + "' but there is no SslBundles bean (spring.ssl.bundle.*)");
        }
        return sslBundles.getBundle(ssl.getBundle());
    }

    private boolean nodesUseTls() {
        return redis.getCluster().getNodes().stream()
                        .anyMatch(node -> node.trim().startsWith("rediss://"))
                || redis.getSentinel().getNodes().stream()
                        .anyMatch(node -> node.trim().startsWith("rediss://"));
    }

    @Override
    public Standalone getStandalone() {
        int database = redis.getDatabase() != null ? redis.getDatabase() : (url != null ? url.database : 0);
        return url != null ? Standalone.of(url.host, url.port, database) : Standalone.of("localhost", 6379, database);
    }

    @Override
    public @Nullable Sentinel getSentinel() {
        DistlockProperties.Sentinel sentinel = redis.getSentinel();
        if (!StringUtils.hasText(sentinel.getMaster())) {
            return null;
        }
        List<Node> nodes = nodes(sentinel.getNodes(), prefix + ".sentinel.nodes");
        int database = redis.getDatabase() != null ? redis.getDatabase() : 0;
        return Sentinel.of(sentinel.getMaster(), nodes, database, sentinel.getUsername(), sentinel.getPassword());
    }

    @Override
    public @Nullable Cluster getCluster() {
        if (redis.getCluster().getNodes().isEmpty()
                || StringUtils.hasText(redis.getSentinel().getMaster())) {
            return null;
        }
        List<Node> nodes = nodes(redis.getCluster().getNodes(), prefix + ".cluster.nodes");
        return () -> nodes;
    }

    private static List<Node> nodes(List<String> values, String property) {
        if (values.isEmpty()) {
            throw new IllegalStateException(property + " must name at least one node");
        }
        return values.stream()
                .map(String::trim)
                .map(value -> {
                    if (value.contains("://")) {
                        ParsedUrl parsed = ParsedUrl.parse(value, property);
                        return new Node(parsed.host, parsed.port);
                    }
                    int colon = value.lastIndexOf(':');
                    try {
                        return colon > 0
                                ? new Node(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)))
                                : new Node(value, 6379);
                    } catch (NumberFormatException ex) {
                        throw new IllegalStateException(
                                "Invalid node '" + value + "' in " + property + ": expected host:port");
                    }
                })
                .toList();
    }

    /** The parts of a {@code redis://} or {@code rediss://} URL. */
    private record ParsedUrl(
            boolean ssl, @Nullable String username, @Nullable String password, String host, int port, int database) {

        static ParsedUrl parse(String value, String property) {
            URI uri;
            try {
                uri = new URI(value.trim());
            } catch (URISyntaxException ex) {
                // The parser's message repeats the input, password included: report only its reason.
                throw invalid(property, value, ex.getReason());
            }
            String scheme = uri.getScheme();
            if (!"redis".equalsIgnoreCase(scheme) && !"rediss".equalsIgnoreCase(scheme)) {
                throw invalid(
                        property,
                        value,
                        value.contains("://")
                                ? "the scheme is '" + scheme + "'; it must be redis:// or rediss://"
                                : "it has no scheme (redis:// or rediss://); a host and port alone is not a URL");
            }
            if (uri.getHost() == null) {
                throw invalid(property, value, "it names no host");
            }
            String username = null;
            String password = null;
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                username = decode(colon >= 0 ? userInfo.substring(0, colon) : userInfo);
                password = colon >= 0 ? decode(userInfo.substring(colon + 1)) : null;
                if (username != null && username.isEmpty()) {
                    username = null;
                }
                if (password == null) {
                    // redis://secret@host: a lone user-info part is a password, as in Redis' own URLs.
                    password = username;
                    username = null;
                }
            }
            int database = 0;
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException ex) {
                    throw invalid(property, value, "the path must be a database index");
                }
            }
            String host = uri.getHost().startsWith("[")
                    ? uri.getHost().substring(1, uri.getHost().length() - 1)
                    : uri.getHost();
            return new ParsedUrl(
                    "rediss".equalsIgnoreCase(scheme),
                    username,
                    password,
                    host,
                    uri.getPort() > 0 ? uri.getPort() : 6379,
                    database);
        }

        // A short failure analysis instead of a long chain of bean creation failures; the value is shown
        // without its credentials.
        private static DistlockStartupException invalid(String property, String value, String reason) {
            return new DistlockStartupException(
                    "Invalid " + property + " '" + masked(value.trim()) + "': " + reason + ".",
                    "Set " + property + " to redis://[[username:]password@]host[:port][/database], or rediss://... "
                            + "for TLS; for example redis://localhost:6379 or rediss://user:secret@redis.example.com:6380/2.",
                    null);
        }

        private static String masked(String value) {
            return value.replaceFirst("^([^/@]*//)?[^@/]*@", "$1******@");
        }

        private static String decode(String value) {
            return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
        }
    }
}
