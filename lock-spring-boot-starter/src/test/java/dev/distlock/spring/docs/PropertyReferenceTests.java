package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps {@code docs/spring-boot-properties.md} generated from the starter's configuration metadata.
 * Run with {@code -Ddocs.update=true} to rewrite the page instead of failing on a difference.
 */
class PropertyReferenceTests {

    private static final String PAGE = "docs/spring-boot-properties.md";

    private static final JsonMapper json = JsonMapper.builder().build();

    @Test
    void shouldMatchTheCommittedPropertyReference() throws IOException {
        Path page = RepositoryRoot.find().resolve(PAGE);
        String committed = Files.readString(page);
        String generated = PropertyReference.splice(committed, PropertyReference.render(starterMetadata()));

        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(page, generated);
        }
        String difference = PropertyReference.difference(PAGE, Files.readString(page), generated);
        if (difference != null) {
            fail(difference);
        }
    }

    @Test
    void shouldListEveryPropertyOfTheMetadataExactlyOnce() throws IOException {
        JsonNode metadata = starterMetadata();
        String table = PropertyReference.render(metadata);

        List<String> names = new ArrayList<>();
        metadata.path("properties")
                .values()
                .forEach(p -> names.add(p.path("name").asString()));
        assertThat(names)
                .contains(
                        "distlock.redis.url",
                        "distlock.watchdog.timeout",
                        "management.endpoint.distlock.access",
                        "distlock.web.problem-details.enabled");
        for (String name : names) {
            assertThat(occurrences(table, "\n| `" + name + "` |")).as(name).isEqualTo(1);
        }
    }

    @Test
    void shouldRenderTypeDefaultDescriptionHintsAndDeprecations() {
        JsonNode metadata = json.readTree(
                """
                {"properties": [
                  {"name": "demo.wait", "type": "java.time.Duration", "defaultValue": "30s",
                   "description": "How long to wait;\\n negative | forever, a *glob* <here>."},
                  {"name": "demo.nodes", "type": "java.util.List<java.lang.String>"},
                  {"name": "demo.prefix", "type": "java.lang.String", "defaultValue": ""},
                  {"name": "demo.policy", "type": "dev.distlock.spring.LeaseLostPolicy", "defaultValue": "log",
                   "description": "What to do."},
                  {"name": "demo.old", "type": "java.lang.Boolean", "description": "Old.",
                   "deprecation": {"replacement": "demo.new", "reason": "Renamed."}}],
                 "hints": [{"name": "demo.policy", "values": [{"value": "log", "description": "Only log."},
                   {"value": "throw"}]}]}
                """);

        assertThat(PropertyReference.render(metadata))
                .isEqualTo(
                        """
                | Property | Type | Default | Description |
                |---|---|---|---|
                | `demo.nodes` | `List<String>` |  |  |
                | `demo.policy` | `LeaseLostPolicy` | `log` | What to do.<br>`log`: Only log.<br>`throw` |
                | `demo.prefix` | `String` | `""` |  |
                | `demo.wait` | `Duration` | `30s` | How long to wait; negative \\| forever, a \\*glob\\* &lt;here&gt;. |

                ## Deprecated properties

                `warning`: still bound, move to the replacement; `error`: no longer bound.

                | Property | Type | Level | Replacement | Reason |
                |---|---|---|---|---|
                | `demo.old` | `Boolean` | `warning` | `demo.new` | Renamed. |
                """);
    }

    @Test
    void whenThePageDiffersThenTheMessageNamesTheLineAndHowToRegenerate() {
        String message = PropertyReference.difference(PAGE, "a\nb\nc\n", "a\nB\nc\n");

        assertThat(message)
                .contains(PAGE, "line 2", "committed: b", "generated: B", "-Ddocs.update=true", "git diff " + PAGE);
        assertThat(PropertyReference.difference(PAGE, "same", "same")).isNull();
    }

    @Test
    void shouldReplaceOnlyTheTextBetweenTheMarkers() {
        String page = "# Title\n\n" + PropertyReference.START + "\nold table\n" + PropertyReference.END + "\nafter\n";

        assertThat(PropertyReference.splice(page, "new table\n"))
                .isEqualTo("# Title\n\n" + PropertyReference.START + "\nnew table\n" + PropertyReference.END
                        + "\nafter\n");
    }

    @Test
    void whenAMarkerIsMissingThenSpliceNamesIt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PropertyReference.splice("# Title\n", "table"))
                .withMessageContaining(PropertyReference.START)
                .withMessageContaining("no start marker");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PropertyReference.splice(PropertyReference.START + "\n", "table"))
                .withMessageContaining("no end marker");
    }

    // The starter's own metadata: the one in this module's classes directory, not those inside jars.
    private static JsonNode starterMetadata() throws IOException {
        List<URL> own = new ArrayList<>();
        for (URL url : Collections.list(PropertyReferenceTests.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            if ("file".equals(url.getProtocol())) {
                own.add(url);
            }
        }
        assertThat(own)
                .as("spring-configuration-metadata.json outside jars on the test classpath "
                        + "(written by spring-boot-configuration-processor when the starter compiles)")
                .hasSize(1);
        try (InputStream in = own.get(0).openStream()) {
            return json.readTree(in);
        }
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            count++;
        }
        return count;
    }
}
