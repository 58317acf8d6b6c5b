package dev.distlock.spring.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checkout's top directory, where README.md and docs/ live. Surefire runs in the module
 * directory, so it is found by walking up to the directory that holds both {@code mvnw} and
 * {@code README.md}.
 */
final class RepositoryRoot {

    private RepositoryRoot() {}

    static Path find() {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException("No directory with mvnw and README.md at or above " + start);
    }
}
