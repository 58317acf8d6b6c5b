package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Every Java example in the docs that is a whole configuration (it declares a
 * {@code @SpringBootApplication} or {@code @Configuration} class) compiles as it is written and
 * starts against a real Redis; a leader-election example also elects its leader. A reader who
 * copies one gets an application that runs.
 */
class DocumentedConfigurationsTests {

    private static final Pattern CONFIGURATION =
            Pattern.compile("(?m)^@(SpringBootApplication|Configuration)\\b[^\\n]*\\n(?:@[^\\n]*\\n)*class\\s+(\\w+)");

    private static final Pattern TOP_LEVEL_COMPONENT =
            Pattern.compile("(?m)^(@\\w+(?:\\([^\\n]*\\))?\\s*\\n)+class\\s+(\\w+)");

    /** What a page says to set beside an example, keyed by a class the example declares. */
    private static final Map<String, List<String>> PROPERTIES =
            Map.of("BillingLeaderConfiguration", List.of("distlock.integration.fenced=true"));

    static final RedisServer redis = RedisServers.shared();

    static Stream<JavaExamples.Block> wholeConfigurations() throws IOException {
        Path root = RepositoryRoot.find();
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> files.add(root.relativize(p)));
        }
        List<JavaExamples.Block> blocks = JavaExamples.blocks(root, files).stream()
                .filter(block -> CONFIGURATION.matcher(block.code()).find())
                .toList();
        // The pages known to hold one; a page that loses its example fails here rather than silently.
        assertThat(blocks)
                .extracting(JavaExamples.Block::location)
                .anyMatch(location -> location.startsWith("docs/spring-integration.md"))
                .anyMatch(location -> location.startsWith("docs/shedlock.md"));
        return blocks.stream();
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("wholeConfigurations")
    void whenAWholeConfigurationOfTheDocsIsCompiledThenItStarts(JavaExamples.Block block, @TempDir Path classes)
            throws Exception {
        String pkg = "docsnippet." + block.location().replaceAll("\\W", "_");
        compile(block, pkg, classes);
        try (URLClassLoader loader = new URLClassLoader(
                new URL[] {classes.toUri().toURL()}, DocumentedConfigurationsTests.class.getClassLoader())) {
            List<Class<?>> sources = new ArrayList<>();
            List<String> properties = new ArrayList<>(List.of(
                    "distlock.redis.url=" + redis.uri(),
                    "spring.main.banner-mode=off",
                    "management.health.redis.enabled=false"));
            boolean bootApplication = false;
            Matcher component = TOP_LEVEL_COMPONENT.matcher(block.code());
            while (component.find()) {
                String name = component.group(2);
                sources.add(loader.loadClass(pkg + "." + name));
                properties.addAll(PROPERTIES.getOrDefault(name, List.of()));
                bootApplication |= component.group().contains("@SpringBootApplication");
            }
            if (!bootApplication) {
                sources.add(AutoConfigured.class);
            }
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder()
                    .resourceLoader(new DefaultResourceLoader(loader))
                    .sources(sources.toArray(Class<?>[]::new))
                    .web(WebApplicationType.NONE)
                    .properties(properties.toArray(String[]::new))
                    .run()) {
                assertThat(context.isActive()).as(block.location()).isTrue();
                for (LockRegistryLeaderInitiator initiator : context.getBeansOfType(LockRegistryLeaderInitiator.class)
                        .values()) {
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> initiator.getContext().isLeader());
                }
            }
        }
    }

    private static void compile(JavaExamples.Block block, String pkg, Path classes) throws IOException {
        Path source = classes.resolve("src").resolve("Example.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "package " + pkg + ";\n" + block.code());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjects(source.toFile());
            boolean compiled = compiler.getTask(
                            errors,
                            files,
                            null,
                            List.of(
                                    "-d",
                                    classes.toString(),
                                    "-classpath",
                                    testClassPath(),
                                    "-parameters",
                                    "-proc:none"),
                            null,
                            units)
                    .call();
            assertThat(compiled)
                    .as("%s does not compile:%n%s", block.location(), errors)
                    .isTrue();
        }
    }

    /** Surefire may run from a manifest-only jar: its own property has the real class path. */
    private static String testClassPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AutoConfigured {}
}
