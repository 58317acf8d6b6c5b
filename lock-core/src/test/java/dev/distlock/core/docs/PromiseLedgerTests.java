package dev.distlock.core.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/promises.md honest: every check it names exists (a test class, a case of one, a class of
 * the fault harness and its method, a rule of the harness's checker), and every promise names a check
 * or says plainly that it has none.
 */
class PromiseLedgerTests {

    private static final Pattern CODE = Pattern.compile("`([A-Z][A-Za-z0-9]+)(?:[#.]([a-zA-Z][A-Za-z0-9]*))?`");
    private static final Pattern RULE = Pattern.compile("`ChaosChecker` rule ([A-Z_]+)");

    @Test
    void everyCheckTheLedgerNamesExists() throws IOException {
        Path root = projectRoot();
        Map<String, Path> sources = javaSources(root);
        List<String> missing = new ArrayList<>();
        for (String row : rows(root)) {
            // The check and workload columns; the promise itself may name any type.
            String named = row.substring(row.indexOf('|', 2));
            Matcher code = CODE.matcher(named);
            while (code.find()) {
                Path source = sources.get(code.group(1));
                if (source == null) {
                    missing.add(code.group());
                } else if (code.group(2) != null && !Files.readString(source).contains(" " + code.group(2) + "(")) {
                    missing.add(code.group() + " (no such method in " + root.relativize(source) + ")");
                }
            }
            Matcher rule = RULE.matcher(named);
            while (rule.find()) {
                if (!Files.readString(sources.get("ChaosChecker")).contains("\"" + rule.group(1) + "\"")) {
                    missing.add("rule " + rule.group(1));
                }
            }
        }
        assertThat(missing)
                .as("checks named in docs/promises.md that do not exist")
                .isEmpty();
    }

    @Test
    void everyPromiseNamesItsCheckOrAGap() throws IOException {
        List<String> unchecked = rows(projectRoot()).stream()
                .filter(row -> {
                    String check = row.split("\\|")[2];
                    return !CODE.matcher(check).find() && !check.contains("**gap**");
                })
                .toList();
        assertThat(unchecked)
                .as("promises with neither a check nor a stated gap")
                .isEmpty();
    }

    /** The ledger's table rows, without headers and separators. */
    private static List<String> rows(Path root) throws IOException {
        return Files.readAllLines(root.resolve("docs/promises.md")).stream()
                .filter(line -> line.startsWith("| ") && !line.startsWith("| promise |"))
                .toList();
    }

    private static Map<String, Path> javaSources(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".java")
                            && file.toString().contains("/src/")
                            && !file.toString().contains("/target/"))
                    .collect(Collectors.toMap(
                            file -> file.getFileName().toString().replace(".java", ""),
                            file -> file,
                            (first, second) -> first));
        }
    }

    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/promises.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a directory above the module with docs/promises.md").isNotNull();
        return dir;
    }
}
