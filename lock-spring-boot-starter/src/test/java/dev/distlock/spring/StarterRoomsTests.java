package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The rooms of {@code dev.distlock.spring.internal} and the one-way order between them, read from the
 * compiled classes (every type a class names, in code or in a signature, is in its constant pool).
 * CONTRIBUTING.md's "Starter layout" lists the same rooms.
 */
class StarterRoomsTests {

    private static final String INTERNAL = "dev/distlock/spring/internal/";

    /** Each room and the other rooms it may use; a room not named here may not be used. */
    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "config", Set.of(),
            "hold", Set.of(),
            "observation", Set.of("hold"),
            "actuator", Set.of("hold", "observation"),
            "aspect", Set.of("hold", "config"),
            "template", Set.of("hold", "config"),
            "aot", Set.of("actuator"));

    private static final Pattern ROOM_REFERENCE = Pattern.compile(Pattern.quote(INTERNAL) + "(\\w+)/");

    // Auto-configurations and bridges sit above the internals and construct them, never the reverse.
    private static final Pattern UPPER_REFERENCE =
            Pattern.compile("dev/distlock/spring/(autoconfigure|web|integration|shedlock)/");

    @Test
    void whenAnInternalClassUsesAnotherRoomThenTheRoomOrderAllowsIt() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, String> entry : internalClassFiles().entrySet()) {
            String room = room(entry.getKey());
            Matcher rooms = ROOM_REFERENCE.matcher(entry.getValue());
            Set<String> used = new TreeSet<>();
            while (rooms.find()) {
                used.add(rooms.group(1));
            }
            used.remove(room);
            used.removeAll(MAY_USE.getOrDefault(room, Set.of()));
            used.forEach(other -> violations.add(entry.getKey() + " uses internal." + other));
            Matcher upper = UPPER_REFERENCE.matcher(entry.getValue());
            if (upper.find()) {
                violations.add(entry.getKey() + " uses " + upper.group(1));
            }
        }
        assertThat(violations).as("uses against the room order %s", MAY_USE).isEmpty();
    }

    @Test
    void whenAClassIsInternalThenItLivesInANamedRoomThatSaysWhatItIs() throws IOException {
        Set<String> rooms = new TreeSet<>();
        for (String name : internalClassFiles().keySet()) {
            assertThat(name.indexOf('/', INTERNAL.length()))
                    .as("%s lives in a room of internal, not in internal itself", name)
                    .isPositive();
            rooms.add(room(name));
        }
        assertThat(rooms).as("rooms with classes").containsExactlyInAnyOrderElementsOf(MAY_USE.keySet());
        for (String room : rooms) {
            assertThat(packageInfo(room))
                    .as("package-info of internal.%s", room)
                    .isTrue();
        }
    }

    @Test
    void whenTheRoomOrderIsFollowedThenItHasNoCycle() {
        for (String room : MAY_USE.keySet()) {
            Set<String> reached = new HashSet<>();
            List<String> next = new ArrayList<>(MAY_USE.get(room));
            while (!next.isEmpty()) {
                String other = next.remove(next.size() - 1);
                assertThat(other).as("internal.%s reaches itself", room).isNotEqualTo(room);
                if (reached.add(other)) {
                    next.addAll(MAY_USE.get(other));
                }
            }
        }
    }

    /** A room's package-info, with the package annotations every internal package carries. */
    private static boolean packageInfo(String room) {
        try {
            Class<?> info = Class.forName("dev.distlock.spring.internal." + room + ".package-info");
            return info.getPackage().isAnnotationPresent(NullMarked.class);
        } catch (ClassNotFoundException ex) {
            return false;
        }
    }

    private static String room(String classFile) {
        int end = classFile.indexOf('/', INTERNAL.length());
        return end < 0 ? "" : classFile.substring(INTERNAL.length(), end);
    }

    /** Main classes of the internal rooms, by path ({@code dev/distlock/spring/internal/hold/Hold}). */
    private static Map<String, String> internalClassFiles() throws IOException {
        Map<String, String> classes = new TreeMap<>();
        for (Resource resource : new PathMatchingResourcePatternResolver(StarterRoomsTests.class.getClassLoader())
                .getResources("classpath*:" + INTERNAL + "**/*.class")) {
            String url = resource.getURL().toString();
            // Main classes only: the test classes share the packages.
            if (url.contains("/test-classes/") || url.endsWith("/package-info.class")) {
                continue;
            }
            String name = url.substring(url.indexOf(INTERNAL), url.length() - ".class".length());
            try (InputStream in = resource.getInputStream()) {
                classes.put(name, new String(in.readAllBytes(), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(classes).as("internal classes found").hasSizeGreaterThan(40);
        return classes;
    }
}
