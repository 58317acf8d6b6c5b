package dev.distlock.core.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a runnable {@code redis-server}: the {@code DISTLOCK_REDIS_SERVER} environment variable,
 * then {@code redis-server} on {@code PATH}, then the binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar (extracted once per JVM).
 * {@code DISTLOCK_REDIS_SERVER=embedded} skips the first two, so a machine with Redis 7 installed
 * can still run the suite on the embedded Redis 6.2. Valkey's {@code valkey-server} works too, and
 * so does the start script {@code .ci/fetch-servers} writes for Valkey 8.1 and Redis 8.0.
 */
final class RedisBinary {

    private static final List<String> EMBEDDED_LINUX_AMD64 = List.of("redis-server-6.2.6-v5-linux-amd64");
    private static final List<String> EMBEDDED_LINUX_ARM64 = List.of("redis-server-6.2.7-linux-arm64");
    private static final List<String> EMBEDDED_MAC_ARM64 = List.of("redis-server-6.2.6-v5-darwin-arm64");
    private static final List<String> EMBEDDED_MAC_AMD64 = List.of("redis-server-6.2.6-v5-darwin-amd64");

    /** Value of {@code DISTLOCK_REDIS_SERVER} that selects the binary inside the embedded-redis jar. */
    static final String EMBEDDED = "embedded";

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)");

    private static volatile Optional<Path> found;
    private static volatile int majorVersion = -1;

    private RedisBinary() {}

    static synchronized Optional<Path> find() {
        if (found == null) {
            found = EMBEDDED.equals(System.getenv("DISTLOCK_REDIS_SERVER"))
                    ? fromEmbeddedJar()
                    : fromEnvironment().or(RedisBinary::fromPath).or(RedisBinary::fromEmbeddedJar);
        }
        return found;
    }

    /** @return the major version of the binary {@link #find()} chose, {@code 0} when there is none */
    static synchronized int majorVersion() {
        if (majorVersion < 0) {
            majorVersion = find().map(RedisBinary::versionOf).orElse(0);
        }
        return majorVersion;
    }

    private static int versionOf(Path binary) {
        Matcher matcher = VERSION.matcher(versionOutput(binary));
        return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
    }

    private static String versionOutput(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            return output;
        } catch (IOException ex) {
            return "";
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static Optional<Path> fromEnvironment() {
        String configured = System.getenv("DISTLOCK_REDIS_SERVER");
        return configured == null || configured.isBlank()
                ? Optional.empty()
                : Optional.of(Path.of(configured)).filter(RedisBinary::runs);
    }

    private static Optional<Path> fromPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isExecutable(candidate) && runs(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> fromEmbeddedJar() {
        for (String resource : embeddedCandidates()) {
            try (InputStream in = RedisBinary.class.getResourceAsStream("/" + resource)) {
                if (in == null) {
                    continue;
                }
                Path dir = Files.createTempDirectory("distlock-redis-bin-");
                Path target = dir.resolve(resource);
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                target.toFile().setExecutable(true);
                dir.toFile().deleteOnExit();
                target.toFile().deleteOnExit();
                if (runs(target)) {
                    return Optional.of(target);
                }
            } catch (IOException ex) {
                // try the next candidate
            }
        }
        return Optional.empty();
    }

    private static List<String> embeddedCandidates() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("mac")) {
            return arm ? EMBEDDED_MAC_ARM64 : EMBEDDED_MAC_AMD64;
        }
        if (os.contains("linux")) {
            return arm ? EMBEDDED_LINUX_ARM64 : EMBEDDED_LINUX_AMD64;
        }
        return List.of();
    }

    private static boolean runs(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException ex) {
            return false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
