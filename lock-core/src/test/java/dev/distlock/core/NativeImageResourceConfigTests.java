package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.script.LuaScript;
import dev.distlock.core.internal.script.Scripts;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The GraalVM resource configuration shipped in lock-core includes every Lua resource the scripts
 * are read from, so that plain-Java native images can load them.
 */
class NativeImageResourceConfigTests {

    private static final String CONFIG = "META-INF/native-image/dev.distlock/lock-core/resource-config.json";

    private static final String SCRIPTS = "dev/distlock/core/scripts/";

    @Test
    void shouldIncludeEveryScriptResourceFile() throws Exception {
        List<Pattern> patterns = patterns();
        List<String> files = scriptFiles();
        assertThat(files)
                .as("script resources")
                .hasSizeGreaterThanOrEqualTo(Scripts.all().size());
        assertThat(files).anyMatch(file -> file.startsWith(SCRIPTS + "fragments/"));
        assertThat(files).allSatisfy(file -> assertThat(patterns).as(file).anyMatch(p -> p.matcher(file)
                .matches()));
        for (LuaScript script : Scripts.all()) {
            String file = SCRIPTS + script.name() + ".lua";
            assertThat(files).contains(file);
        }
    }

    @Test
    void shouldIncludeNothingButLuaScripts() throws Exception {
        List<Pattern> patterns = patterns();
        assertThat(List.of("dev/distlock/core/LockClient.class", SCRIPTS + "notes.txt", "other/renew.lua"))
                .allSatisfy(path -> assertThat(patterns).as(path).noneMatch(p -> p.matcher(path)
                        .matches()));
    }

    /** The regular expressions of the configuration's includes. */
    private static List<Pattern> patterns() throws Exception {
        String json;
        try (InputStream in =
                NativeImageResourceConfigTests.class.getClassLoader().getResourceAsStream(CONFIG)) {
            assertThat(in).as(CONFIG).isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Pattern> patterns = new ArrayList<>();
        Matcher matcher = Pattern.compile("\"pattern\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
                .matcher(json);
        while (matcher.find()) {
            // JSON string escapes: only backslashes and quotes occur in these patterns.
            patterns.add(Pattern.compile(matcher.group(1).replace("\\\\", "\\").replace("\\\"", "\"")));
        }
        assertThat(patterns).isNotEmpty();
        return patterns;
    }

    /** Every file under the scripts directory, as class-path resource paths. */
    private static List<String> scriptFiles() throws Exception {
        URL url = LuaScript.class.getResource("/" + SCRIPTS);
        assertThat(url).isNotNull();
        assertThat(url.getProtocol()).isEqualTo("file");
        Path root = Path.of(url.toURI());
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .map(file -> SCRIPTS + root.relativize(file).toString().replace('\\', '/'))
                    .toList();
        }
    }
}
