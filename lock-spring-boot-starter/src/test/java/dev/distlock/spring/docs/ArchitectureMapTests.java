package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps ARCHITECTURE.md's room tables in step with the code: every internal package (room) of
 * lock-core and of the starter has a row, and every row names a room that exists. A room table
 * row starts with the room's name in backticks: {@code | `hold` | ...}.
 */
class ArchitectureMapTests {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z]+)` \\|", Pattern.MULTILINE);

    @Test
    void shouldHaveARowForEveryRoomOfCoreAndTheStarterAndNoOther() throws IOException {
        Path root = RepositoryRoot.find();
        String map = Files.readString(root.resolve("ARCHITECTURE.md"));

        Set<String> core = rooms(root.resolve("lock-core/src/main/java/dev/distlock/core/internal"));
        Set<String> starter =
                rooms(root.resolve("lock-spring-boot-starter/src/main/java/dev/distlock/spring/internal"));
        assertThat(core).as("rooms of lock-core").hasSizeGreaterThan(3);
        assertThat(starter).as("rooms of the starter").hasSizeGreaterThan(3);

        assertThat(rows(section(map, "## Rooms of `lock-core`")))
                .as("rows of ARCHITECTURE.md's lock-core table")
                .isEqualTo(core);
        assertThat(rows(section(map, "## Rooms of `lock-spring-boot-starter`")))
                .as("rows of ARCHITECTURE.md's starter table")
                .isEqualTo(starter);
    }

    @Test
    void whenARoomHasNoRowThenTheRowsDifferFromTheRooms() {
        String map =
                """
                ## Rooms of `lock-core`

                | room | what it does |
                |---|---|
                | `hold` | holds |

                ## Next
                | `elsewhere` | not in this section |
                """;

        assertThat(rows(section(map, "## Rooms of `lock-core`"))).containsExactly("hold");
    }

    /** @return the directories under {@code internal} that hold Java sources */
    private static Set<String> rooms(Path internal) throws IOException {
        Set<String> rooms = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(internal)) {
            dirs.filter(Files::isDirectory)
                    .filter(ArchitectureMapTests::hasJava)
                    .forEach(dir -> rooms.add(dir.getFileName().toString()));
        }
        return rooms;
    }

    private static boolean hasJava(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the text from a heading up to the next heading of the same level */
    private static String section(String markdown, String heading) {
        int start = markdown.indexOf(heading);
        assertThat(start).as("heading %s in ARCHITECTURE.md", heading).isNotNegative();
        int end = markdown.indexOf("\n## ", start + heading.length());
        return end < 0 ? markdown.substring(start) : markdown.substring(start, end);
    }

    private static Set<String> rows(String section) {
        Set<String> rows = new TreeSet<>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            rows.add(row.group(1));
        }
        return rows;
    }
}
