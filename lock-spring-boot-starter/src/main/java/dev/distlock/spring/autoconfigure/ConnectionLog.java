package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClientOptions;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The line the starter logs once at startup saying which Redis it connects to, so that nobody has to
 * guess whether {@code distlock.redis.*}, {@code spring.data.redis.*}, a connection-details bean or
 * the default was chosen. Passwords never appear.
 */
final class ConnectionLog {

    /** The password part of a URI's user info: {@code redis://user:secret@host} or {@code redis://:secret@host}. */
    private static final Pattern PASSWORD = Pattern.compile("(://[^:@/]*:)[^@/]*@");

    private ConnectionLog() {}

    /**
     * Describes the connection.
     * @param options the client's options
     * @param details where they came from
     * @return e.g. {@code redis://cache:6379/2 (standalone, user 'app', password ****, TLS), from spring.data.redis.*}
     */
    static String describe(LockClientOptions options, DistlockConnectionDetails details) {
        String address;
        String topology;
        if (!options.clusterNodes().isEmpty()) {
            address = mask(options.clusterNodes());
            topology = "Cluster";
        } else if (options.sentinelMaster() != null) {
            address = "master '" + options.sentinelMaster() + "' via " + mask(options.sentinelNodes())
                    + (options.database() != null && options.database() != 0 ? ", database " + options.database() : "");
            topology = "Sentinel";
        } else {
            address = mask(List.of(options.uri()));
            topology = "standalone";
        }
        StringBuilder line = new StringBuilder(address).append(" (").append(topology);
        if (options.username() != null) {
            line.append(", user '").append(options.username()).append("'");
        }
        if (options.password() != null) {
            line.append(", password ****");
        }
        if (options.ssl()) {
            line.append(", TLS");
        }
        return line.append("), from ").append(source(details)).toString();
    }

    static String source(DistlockConnectionDetails details) {
        return details instanceof ConnectionSource own
                ? own.source()
                : "the DistlockConnectionDetails bean " + details.getClass().getName();
    }

    private static String mask(List<String> uris) {
        return String.join(
                ", ",
                uris.stream()
                        .map(uri -> PASSWORD.matcher(uri).replaceAll("$1****@"))
                        .toList());
    }
}
