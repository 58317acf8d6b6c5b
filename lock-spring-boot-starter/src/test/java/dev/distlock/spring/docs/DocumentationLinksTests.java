package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fails the build on a broken relative link or {@code #anchor} in the project's Markdown: the README,
 * CONTRIBUTING.md, ARCHITECTURE.md, every page under docs/ and the benchmark results. External links are not fetched
 * (the build has no network), only checked to be well-formed.
 */
class DocumentationLinksTests {

    private static final List<String> REQUIRED =
            List.of("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "lock-benchmarks/results.md");

    @TempDir
    Path dir;

    @Test
    void shouldFindNoBrokenLinkInTheDocumentation() throws IOException {
        Path root = RepositoryRoot.find();
        List<Path> files = new ArrayList<>();
        for (String required : REQUIRED) {
            assertThat(root.resolve(required)).as("documentation file").isRegularFile();
            files.add(Path.of(required));
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> files.add(root.relativize(p)));
        }
        assertThat(files).as("pages under docs/").hasSizeGreaterThan(REQUIRED.size() + 5);

        MarkdownLinks.Report report = MarkdownLinks.check(root, files);

        assertThat(report.problems())
                .as("broken links in README.md, CONTRIBUTING.md, ARCHITECTURE.md, docs/ and lock-benchmarks/results.md")
                .isEmpty();
        assertThat(report.linksChecked()).isGreaterThan(20);
    }

    @Test
    void whenATargetFileOrAnchorIsMissingThenEachIsReportedWithFileAndLine() throws IOException {
        write("docs/a.md", "# Page A\n\n## Second part\n");
        write(
                "README.md",
                """
                # Readme

                See [A](docs/a.md), [its second part](docs/a.md#second-part) and [top](#readme).
                Broken: [gone](docs/gone.md), [no part](docs/a.md#third-part),
                [self](#nowhere) and [Upper](docs/a.md#Second-part).
                """);

        List<String> problems = check("README.md", "docs/a.md");

        assertThat(problems)
                .containsExactly(
                        "README.md:4: [gone](docs/gone.md): no file docs/gone.md",
                        "README.md:4: [no part](docs/a.md#third-part): no heading with anchor '#third-part' in docs/a.md",
                        "README.md:5: [self](#nowhere): no heading with anchor '#nowhere' in README.md",
                        "README.md:5: [Upper](docs/a.md#Second-part): anchor '#Second-part' must be lowercase, as GitHub writes heading anchors");
    }

    @Test
    void shouldResolveLinksRelativeToTheLinkingFile() throws IOException {
        write("README.md", "# Readme\n");
        write("docs/images/picture.png", "png");
        write(
                "docs/b.md",
                """
                # B

                ![a picture
                over two lines](images/picture.png) [up](../README.md#readme) [out](../../elsewhere.md)
                """);

        assertThat(check("docs/b.md"))
                .containsExactly("docs/b.md:4: [out](../../elsewhere.md): points outside the repository");
    }

    @Test
    void shouldIgnoreLinksInsideCode() throws IOException {
        write(
                "README.md",
                """
                # Readme

                `[not a link](missing.md)` and
                ```java
                String s = "[also not](missing.md)";
                ```
                [a real one](missing.md)
                """);

        assertThat(check("README.md")).containsExactly("README.md:7: [a real one](missing.md): no file missing.md");
    }

    @Test
    void whenAnExternalLinkIsMalformedThenItIsReportedWithoutBeingFetched() throws IOException {
        write(
                "README.md",
                """
                # Readme

                [fine](https://github.com/reactor/BlockHound) <http://localhost:8080/> [mail](mailto:a@example.org)
                [no host](https:///path) [bad](http://exa^mple.com/) [odd](ftp://example.org/x)
                [space](https://example.org/a b)
                """);

        List<String> problems = check("README.md");

        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).isEqualTo("README.md:4: [no host](https:///path): malformed URL: no host");
        assertThat(problems.get(1)).startsWith("README.md:4: [bad](http://exa^mple.com/): malformed URL");
        assertThat(problems.get(2))
                .isEqualTo(
                        "README.md:4: [odd](ftp://example.org/x): unexpected scheme 'ftp' (only http, https and mailto are linked)");
        assertThat(problems.get(3))
                .isEqualTo("README.md:5: '[space](https://example.org/a b)' is not a well-formed Markdown link");
    }

    @Test
    void shouldDeriveAnchorsAsGitHubDoes() {
        assertThat(MarkdownText.anchor("Quick start: plain Java")).isEqualTo("quick-start-plain-java");
        assertThat(MarkdownText.anchor("`@DistributedLock`")).isEqualTo("distributedlock");
        assertThat(MarkdownText.anchor("Red lock (Redlock)")).isEqualTo("red-lock-redlock");
        assertThat(MarkdownText.anchor("Read-write lock")).isEqualTo("read-write-lock");
        assertThat(MarkdownText.anchor("snake_case, [linked](x.md) & **bold**")).isEqualTo("snake_case-linked--bold");
        assertThat(
                        MarkdownText.anchors(
                                """
                # Title
                ## Notes
                ```
                ## Not a heading
                ```
                ## Notes
                <a name="custom"></a>
                """))
                .containsExactly("title", "notes", "notes-1", "custom");
    }

    private void write(String path, String content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private List<String> check(String... files) throws IOException {
        return MarkdownLinks.check(dir, Stream.of(files).map(Path::of).toList()).problems();
    }
}
