package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.DistlockRedisTest;
import dev.distlock.spring.LockTemplate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON examples of the {@code distlock} endpoint in docs/spring-boot.md have the shape of the
 * endpoint's real replies (the same fields at the same places), and a lock is found by its name or
 * its full Redis key, with the key in every reply.
 */
@DistlockRedisTest
@SpringBootTest(
        classes = EndpointReplyDocumentationTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=distlock",
            "management.endpoint.distlock.access=unrestricted",
            "distlock.events.enabled=true",
            "distlock.key-prefix=shop:"
        })
class EndpointReplyDocumentationTests {

    private static final Pattern EXAMPLE =
            Pattern.compile("<!-- endpoint-reply: (\\S+) -->\\s*```json\\n(.*?)```", Pattern.DOTALL);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @LocalServerPort
    int port;

    @Autowired
    LockTemplate template;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void whenTheEndpointAnswersThenItsRepliesHaveTheShapeOfTheDocumentedExamples() throws Exception {
        Map<String, String> documented = documentedExamples();
        assertThat(documented).containsKeys("locks", "lock", "force-unlock");

        AtomicReference<String> locks = new AtomicReference<>();
        AtomicReference<String> byName = new AtomicReference<>();
        AtomicReference<String> byKey = new AtomicReference<>();
        template.execute("invoice-7", () -> {
            try {
                locks.set(send("GET", "/actuator/distlock?eventsAfter=0"));
                byName.set(send("GET", "/actuator/distlock/invoice-7"));
                byKey.set(send("GET", "/actuator/distlock/shop:invoice-7"));
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        String released = send("DELETE", "/actuator/distlock/shop:invoice-7");

        assertShape(locks.get(), documented.get("locks"), "locks");
        assertShape(byName.get(), documented.get("lock"), "lock");
        assertShape(released, documented.get("force-unlock"), "force-unlock");

        JsonNode report = JSON.readTree(locks.get());
        assertThat(report.get("held").get(0).get("key").asText()).isEqualTo("shop:invoice-7");
        assertThat(report.get("held").get(0).get("annotationName").asText()).isEqualTo("invoice-7");
        assertThat(report.get("events").get("events").get(0).get("type").asText())
                .isEqualTo("acquired");
        JsonNode state = JSON.readTree(byKey.get());
        assertThat(state.get("name").asText()).isEqualTo("invoice-7");
        assertThat(state.get("key").asText()).isEqualTo("shop:invoice-7");
        assertThat(state.get("state").asText()).isEqualTo("locked");
        assertThat(JSON.readTree(byName.get()).get("state").asText()).isEqualTo("locked");
        assertThat(JSON.readTree(released).get("key").asText()).isEqualTo("shop:invoice-7");
    }

    private static Map<String, String> documentedExamples() throws Exception {
        String text = Files.readString(RepositoryRoot.find().resolve("docs/spring-boot.md"));
        Map<String, String> examples = new java.util.HashMap<>();
        Matcher matcher = EXAMPLE.matcher(text);
        while (matcher.find()) {
            examples.put(matcher.group(1), matcher.group(2));
        }
        return examples;
    }

    private static void assertShape(String actual, String documented, String example) {
        assertThat(paths(JSON.readTree(documented)))
                .as("fields of the '%s' example in docs/spring-boot.md, against the reply %s", example, actual)
                .isEqualTo(paths(JSON.readTree(actual)));
    }

    /** Every field's path, array elements as {@code []}: {@code events.events[].type}. */
    private static Set<String> paths(JsonNode node) {
        Set<String> paths = new TreeSet<>();
        collect(node, "", paths);
        return paths;
    }

    private static void collect(JsonNode node, String path, Set<String> paths) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String child = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                // Holder fields are owner ids, data rather than shape.
                if (path.endsWith("holders")) {
                    paths.add(path + ".<owner>");
                    continue;
                }
                paths.add(child);
                collect(field.getValue(), child, paths);
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                collect(element, path + "[]", paths);
            }
        }
    }

    private String send(String method, String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as("%s %s: %s", method, path, response.body())
                .isEqualTo(200);
        return response.body();
    }
}
