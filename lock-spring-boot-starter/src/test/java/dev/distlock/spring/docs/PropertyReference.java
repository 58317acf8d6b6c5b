package dev.distlock.spring.docs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Renders Spring Boot configuration metadata ({@code META-INF/spring-configuration-metadata.json})
 * as the Markdown property reference of {@code docs/spring-boot-properties.md}, and splices it into
 * that page between its marker comments.
 *
 * <p>The metadata is the single source: property Javadoc, field defaults and
 * {@code additional-spring-configuration-metadata.json} (which the annotation processor merges in).
 */
final class PropertyReference {

    static final String START = "<!-- properties:start -->";

    static final String END = "<!-- properties:end -->";

    static final String UPDATE_COMMAND = "./mvnw -pl lock-spring-boot-starter -am test -Dtest=PropertyReferenceTests"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true";

    private PropertyReference() {}

    /**
     * The Markdown between the markers: a table of current properties and, if any, one of
     * deprecated properties with their replacements.
     */
    static String render(JsonNode metadata) {
        Map<String, List<String>> hints = hintsByProperty(metadata);
        List<JsonNode> properties = new ArrayList<>();
        metadata.path("properties").values().forEach(properties::add);
        properties.sort(Comparator.comparing(p -> p.path("name").asString()));

        StringBuilder current = new StringBuilder("| Property | Type | Default | Description |\n|---|---|---|---|\n");
        StringBuilder deprecated =
                new StringBuilder("| Property | Type | Level | Replacement | Reason |\n|---|---|---|---|---|\n");
        boolean anyDeprecated = false;
        for (JsonNode property : properties) {
            String name = property.path("name").asString();
            String type = shortType(property.path("type").asString(""));
            JsonNode deprecation = property.path("deprecation");
            if (!deprecation.isMissingNode()) {
                anyDeprecated = true;
                String replacement = deprecation.path("replacement").asString("");
                deprecated.append(row(
                        code(name),
                        code(type),
                        code(deprecation.path("level").asString("warning")),
                        replacement.isEmpty() ? "" : code(replacement),
                        text(deprecation.path("reason").asString(""))));
                continue;
            }
            String description = text(property.path("description").asString(""));
            List<String> values = hints.get(name);
            if (values != null) {
                description += (description.isEmpty() ? "" : "<br>") + String.join("<br>", values);
            }
            current.append(row(code(name), code(type), defaultValue(property.path("defaultValue")), description));
        }
        StringBuilder out = new StringBuilder(current);
        if (anyDeprecated) {
            out.append("\n## Deprecated properties\n\n`warning`: still bound, move to the replacement;"
                            + " `error`: no longer bound.\n\n")
                    .append(deprecated);
        }
        return out.toString();
    }

    /**
     * {@code page} with everything between the markers replaced by {@code generated}.
     * @throws IllegalArgumentException naming the missing marker when {@code page} lacks one
     */
    static String splice(String page, String generated) {
        int start = page.indexOf(START);
        int end = page.indexOf(END);
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("The property reference page must contain '" + START + "' followed by '"
                    + END + "'; found " + (start < 0 ? "no start marker" : "no end marker after the start marker"));
        }
        return page.substring(0, start + START.length()) + "\n" + generated + page.substring(end);
    }

    /**
     * Why {@code committed} is not {@code generated} (the first differing line of each and how to
     * regenerate), or {@code null} when they are equal.
     */
    static @Nullable String difference(String page, String committed, String generated) {
        if (committed.equals(generated)) {
            return null;
        }
        String[] have = committed.split("\n", -1);
        String[] want = generated.split("\n", -1);
        int line = 0;
        while (line < have.length && line < want.length && have[line].equals(want[line])) {
            line++;
        }
        return page + " does not match the configuration metadata (property Javadoc and"
                + " additional-spring-configuration-metadata.json); first difference at line " + (line + 1) + ":\n"
                + "  committed: " + (line < have.length ? have[line] : "(end of file)") + "\n"
                + "  generated: " + (line < want.length ? want[line] : "(end of file)") + "\n"
                + "Regenerate it with\n  " + UPDATE_COMMAND + "\nand review the change with 'git diff " + page + "'.";
    }

    private static Map<String, List<String>> hintsByProperty(JsonNode metadata) {
        Map<String, List<String>> hints = new HashMap<>();
        for (JsonNode hint : metadata.path("hints").values()) {
            List<String> values = new ArrayList<>();
            for (JsonNode value : hint.path("values").values()) {
                String description = value.path("description").asString("");
                values.add(
                        code(value.path("value").asString()) + (description.isEmpty() ? "" : ": " + text(description)));
            }
            hints.put(hint.path("name").asString(), values);
        }
        return hints;
    }

    // java.util.List<java.lang.String> -> List<String>: package names only make the column wide.
    private static String shortType(String type) {
        // Nested types show by their own name: DistlockShedLockProperties$Layout is Layout.
        return type.replaceAll("\\b(?:[a-z_][a-z0-9_]*\\.)+(?=[A-Z])", "").replaceAll("\\b[A-Za-z0-9_]+\\$", "");
    }

    private static String defaultValue(JsonNode value) {
        if (value.isMissingNode() || value.isNull()) {
            return "";
        }
        if (value.isArray()) {
            List<String> elements = new ArrayList<>();
            value.values().forEach(element -> elements.add(element.asString()));
            return code(String.join(",", elements));
        }
        String text = value.asString();
        return text.isEmpty() ? code("\"\"") : code(text);
    }

    private static String row(String... cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }

    private static String code(String value) {
        return "`" + value.replace("|", "\\|") + "`";
    }

    // Metadata descriptions are plain text: keep Markdown from reading their punctuation as markup.
    private static String text(String value) {
        return value.replaceAll("\\s+", " ")
                .trim()
                .replace("\\", "\\\\")
                .replace("|", "\\|")
                .replace("*", "\\*")
                .replace("<", "&lt;")
                .replace(">", "&gt;");
    }
}
