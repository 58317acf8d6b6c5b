package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java example in the README and under docs/ carries the imports it needs, so that a reader
 * who copies it gets code that compiles once their own names are filled in.
 */
class ExampleImportsTests {

    @Test
    void shouldImportEveryTypeTheDocumentationExamplesUse() throws IOException {
        Path root = RepositoryRoot.find();
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> files.add(root.relativize(p)));
        }

        List<JavaExamples.Block> blocks = JavaExamples.blocks(root, files);

        assertThat(blocks).as("Java examples in README.md and docs/").hasSizeGreaterThan(10);
        assertThat(blocks.stream().flatMap(block -> JavaExamples.problems(root, block).stream()))
                .as("types used without an import in the Java examples")
                .isEmpty();
    }

    @Test
    void whenAnExampleUsesATypeItDoesNotImportThenTheTypeAndItsLineAreReported() {
        List<JavaExamples.Block> blocks = JavaExamples.blocks(
                "docs/page.md",
                """
                # Page

                ```java
                import dev.distlock.core.LockClient;

                try (LockClient client = LockClient.create("redis://localhost:6379")) {
                    RedisLock lock = client.getLock("orders:42");
                    lock.tryLock(5, 30, TimeUnit.SECONDS);
                }
                ```
                """);

        assertThat(blocks).hasSize(1);
        assertThat(JavaExamples.problems(RepositoryRoot.find(), blocks.get(0)))
                .containsExactly(
                        "docs/page.md:3: RedisLock (line 4 of the block) is neither imported nor declared",
                        "docs/page.md:3: TimeUnit (line 5 of the block) is neither imported nor declared");
    }

    @Test
    void whenAnImportNamesNoTypeOrAWholePackageThenItIsReported() {
        JavaExamples.Block block = new JavaExamples.Block(
                "README.md:10",
                """
                import dev.distlock.core.NoSuchLock;
                import dev.distlock.spring.*;
                import static org.assertj.core.api.Assertions.assertThat;
                import com.example.shop.Order;

                NoSuchLock lock = null;
                assertThat(new Order()).isNotNull();
                """);

        assertThat(JavaExamples.problems(RepositoryRoot.find(), block))
                .containsExactly(
                        "README.md:10: import dev.distlock.core.NoSuchLock names no type on the class path or in the repository",
                        "README.md:10: import dev.distlock.spring.* names a whole package; import each type");
    }

    @Test
    void shouldAcceptJavaLangDeclaredTypesTypeParametersAndNamesInCommentsOrStrings() {
        JavaExamples.Block block = new JavaExamples.Block(
                "README.md:1",
                """
                import dev.distlock.test.DistlockTestRedis;

                @DistlockTestRedis
                class Jobs<T> {
                    // Nothing in a comment (Like, This) is a type
                    record Job(String name) {}
                    T run(Job job) { throw new IllegalStateException("Not Yet: " + job.name()); }
                }
                """);

        assertThat(JavaExamples.problems(RepositoryRoot.find(), block)).isEmpty();
    }
}
