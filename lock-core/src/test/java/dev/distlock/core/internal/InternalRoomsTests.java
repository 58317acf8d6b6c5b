package dev.distlock.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rooms of {@code dev.distlock.core.internal}, lowest first: a class may use its own room and
 * the rooms listed before it, never one listed after it. Read from the compiled classes' constant
 * pools, so a fully qualified name in code counts as much as an import, and from the sources'
 * import lines, which also show a use of another room's constants (inlined by the compiler).
 */
class InternalRoomsTests {

    /** Lowest first. {@code ""} is the root package's shared helpers ({@code Failures}, ...). */
    static final List<String> ROOMS = List.of(
            "options",
            "connection",
            "pubsub",
            "",
            "script",
            "layout",
            "hold",
            "watchdog",
            "engine",
            "acquire",
            "kind",
            "composite");

    private static final String INTERNAL = "dev/distlock/core/internal/";

    /** A class of an internal room named in a constant: {@code dev/distlock/core/internal/<room>/<Class>}. */
    /** An import of an internal room's class, as written in a source file. */
    private static final Pattern IMPORT = Pattern.compile(
            "^import (?:static )?dev\\.distlock\\.core\\.internal\\.(?:([a-z]\\w*)\\.)?[A-Z]", Pattern.MULTILINE);

    private static final Pattern REFERENCE = Pattern.compile("dev/distlock/core/internal/(?:([a-z]\\w*)/)?[A-Z$]");

    @Test
    void everyRoomUsesOnlyTheRoomsBelowIt() throws IOException {
        List<String> violations = violations(ROOMS);
        assertThat(violations)
                .as("classes that use a room above their own (order, lowest first: %s)", ROOMS)
                .isEmpty();
    }

    @Test
    void theCheckSeesAUseOfARoomAbove() throws IOException {
        // The engine starts and stops the watchdog: with the two swapped, that use points upwards.
        List<String> swapped = new ArrayList<>(ROOMS);
        swapped.set(ROOMS.indexOf("watchdog"), "engine");
        swapped.set(ROOMS.indexOf("engine"), "watchdog");
        assertThat(violations(swapped)).contains("engine/LockEngine.class uses room 'watchdog'");
    }

    @Test
    void everyInternalClassIsInAListedRoomWithAPackageInfo() throws IOException {
        Map<String, List<Path>> byRoom = classesByRoom();
        assertThat(ROOMS).as("rooms of the internal classes").containsAll(byRoom.keySet());
        Path root = internalRoot();
        for (String room : byRoom.keySet()) {
            assertThat(root.resolve(room).resolve("package-info.class"))
                    .as("package-info of room '%s'", room)
                    .exists();
        }
    }

    /**
     * Lists the uses of a room above the user's own.
     * @param order the rooms, lowest first
     * @return one line per class and room it must not use
     */
    static List<String> violations(List<String> order) throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Path>> room : classesByRoom().entrySet()) {
            int rank = order.indexOf(room.getKey());
            for (Path type : room.getValue()) {
                TreeSet<String> usedRooms = roomsUsedBy(type);
                usedRooms.addAll(roomsImportedBy(type));
                for (String used : usedRooms) {
                    if (!used.equals(room.getKey()) && order.indexOf(used) > rank) {
                        violations.add(internalRoot().relativize(type) + " uses room '" + used + "'");
                    }
                }
            }
        }
        return violations;
    }

    private static Map<String, List<Path>> classesByRoom() throws IOException {
        Path root = internalRoot();
        Map<String, List<Path>> byRoom = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".class"))
                    .filter(f -> !f.getFileName().toString().equals("package-info.class"))
                    .forEach(f -> {
                        Path dir = root.relativize(f).getParent();
                        String room = dir == null ? "" : dir.toString().replace('\\', '/');
                        byRoom.computeIfAbsent(room, r -> new ArrayList<>()).add(f);
                    });
        }
        assertThat(byRoom).as("compiled internal classes under %s", root).isNotEmpty();
        return byRoom;
    }

    private static Path internalRoot() {
        try {
            Path classes = Path.of(Failures.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return classes.resolve(INTERNAL);
        } catch (URISyntaxException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Reads the import lines of a class's source file (a nested class's is its top-level class's).
     * The sources sit at {@code src/main/java} next to the module's {@code target/classes}.
     */
    private static TreeSet<String> roomsImportedBy(Path classFile) throws IOException {
        Path classes = internalRoot().resolve("../../../..").normalize();
        Path sources = classes.getParent().getParent().resolve("src/main/java");
        String name = classes.relativize(classFile).toString().replace('\\', '/');
        Path source = sources.resolve(name.replaceFirst("\\$.*", "").replaceFirst("\\.class$", "") + ".java");
        assertThat(source).as("source of %s", name).exists();
        TreeSet<String> rooms = new TreeSet<>();
        Matcher m = IMPORT.matcher(Files.readString(source));
        while (m.find()) {
            rooms.add(m.group(1) == null ? "" : m.group(1));
        }
        return rooms;
    }

    /** Reads the UTF-8 constants of a class file and collects the internal rooms they name. */
    private static TreeSet<String> roomsUsedBy(Path classFile) throws IOException {
        TreeSet<String> rooms = new TreeSet<>();
        try (InputStream in = Files.newInputStream(classFile);
                DataInputStream data = new DataInputStream(in)) {
            data.readInt(); // magic
            data.readUnsignedShort(); // minor
            data.readUnsignedShort(); // major
            int count = data.readUnsignedShort();
            for (int i = 1; i < count; i++) {
                int tag = data.readUnsignedByte();
                switch (tag) {
                    case 1 -> {
                        Matcher m = REFERENCE.matcher(data.readUTF());
                        while (m.find()) {
                            rooms.add(m.group(1) == null ? "" : m.group(1));
                        }
                    }
                    case 7, 8, 16, 19, 20 -> data.skipBytes(2);
                    case 15 -> data.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> data.skipBytes(4);
                    case 5, 6 -> {
                        data.skipBytes(8);
                        i++; // takes two entries
                    }
                    default -> throw new IOException("Unknown constant tag " + tag + " in " + classFile);
                }
            }
        }
        return rooms;
    }
}
