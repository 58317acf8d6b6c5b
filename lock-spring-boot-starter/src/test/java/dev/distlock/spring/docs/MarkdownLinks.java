package dev.distlock.spring.docs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the relative links and {@code #anchors} of Markdown files the way GitHub resolves them,
 * without network: external {@code http(s)} links are only checked to be well-formed URIs.
 *
 * <p>Text inside fenced code blocks and code spans is not Markdown, so links there are ignored;
 * anchors are those {@link MarkdownText#anchors(String)} derives from the target's headings.
 */
final class MarkdownLinks {

    /** What a check found: every broken link, and how many links were looked at. */
    record Report(List<String> problems, int linksChecked) {}

    // [text](target "title") and ![alt](target); text may hold one level of brackets and span lines.
    private static final Pattern INLINE_LINK = Pattern.compile(
            "!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*\\])*)\\]\\(\\s*(<[^>\\n]*>|[^\\s()]*(?:\\([^\\s()]*\\)[^\\s()]*)*)"
                    + "(?:\\s+(?:\"[^\"]*\"|'[^']*'))?\\s*\\)");

    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:[ \\t]*(\\S+)");

    private static final Pattern AUTOLINK = Pattern.compile("<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\\s]*)>");

    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Path root;

    private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

    private MarkdownLinks(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Checks every link of {@code files} (paths inside {@code root}) and reports the broken ones. */
    static Report check(Path root, List<Path> files) throws IOException {
        MarkdownLinks links = new MarkdownLinks(root);
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path file : files) {
            Path absolute = links.root.resolve(file).normalize();
            String markdown = Files.readString(absolute);
            String prose = MarkdownText.withoutCode(markdown);
            List<int[]> consumed = new ArrayList<>();
            Matcher link = INLINE_LINK.matcher(prose);
            while (link.find()) {
                consumed.add(new int[] {link.start(), link.end()});
                checked++;
                links.checkTarget(absolute, prose, link.start(), link.group(0), link.group(2), problems);
            }
            for (Pattern pattern : List.of(REFERENCE_DEFINITION, AUTOLINK)) {
                Matcher other = pattern.matcher(prose);
                while (other.find()) {
                    checked++;
                    links.checkTarget(absolute, prose, other.start(), other.group(0), other.group(1), problems);
                }
            }
            // "](" left over is a link Markdown could not parse (a space in the target, say).
            for (int at = prose.indexOf("]("); at >= 0; at = prose.indexOf("](", at + 1)) {
                int position = at;
                if (consumed.stream().noneMatch(range -> range[0] <= position && position < range[1])) {
                    problems.add(links.where(absolute, prose, at) + ": '" + excerpt(prose, at)
                            + "' is not a well-formed Markdown link");
                }
            }
        }
        return new Report(problems, checked);
    }

    private void checkTarget(Path file, String prose, int at, String link, String rawTarget, List<String> problems) {
        String target = rawTarget.startsWith("<") && rawTarget.endsWith(">")
                ? rawTarget.substring(1, rawTarget.length() - 1)
                : rawTarget;
        String problem = problemWith(file, target);
        if (problem != null) {
            problems.add(where(file, prose, at) + ": " + oneLine(link) + ": " + problem);
        }
    }

    private String problemWith(Path file, String target) {
        if (target.isEmpty()) {
            return "empty link target";
        }
        if (SCHEME.matcher(target).find()) {
            return externalProblem(target);
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path resolved = file;
        if (!path.isEmpty()) {
            String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
            resolved = (decoded.startsWith("/")
                            ? root.resolve(decoded.substring(1))
                            : file.getParent().resolve(decoded))
                    .normalize();
            if (!resolved.startsWith(root)) {
                return "points outside the repository";
            }
            if (!Files.exists(resolved)) {
                return "no file " + root.relativize(resolved);
            }
        }
        if (fragment == null) {
            return null;
        }
        if (!resolved.getFileName().toString().endsWith(".md") || !Files.isRegularFile(resolved)) {
            return "'#" + fragment + "' points into " + root.relativize(resolved) + ", which has no heading anchors";
        }
        if (!fragment.equals(fragment.toLowerCase(Locale.ROOT))) {
            return "anchor '#" + fragment + "' must be lowercase, as GitHub writes heading anchors";
        }
        if (!anchorsOf(resolved).contains(fragment)) {
            return "no heading with anchor '#" + fragment + "' in " + root.relativize(resolved);
        }
        return null;
    }

    private static String externalProblem(String target) {
        String scheme = target.substring(0, target.indexOf(':')).toLowerCase(Locale.ROOT);
        if (scheme.equals("mailto")) {
            return null;
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return "unexpected scheme '" + scheme + "' (only http, https and mailto are linked)";
        }
        try {
            URI uri = new URI(target);
            if (uri.getHost() == null || uri.getHost().isEmpty()) {
                return "malformed URL: no host";
            }
            return null;
        } catch (URISyntaxException ex) {
            return "malformed URL: " + ex.getMessage();
        }
    }

    private Set<String> anchorsOf(Path file) {
        return anchorsByFile.computeIfAbsent(file, f -> {
            try {
                return MarkdownText.anchors(Files.readString(f));
            } catch (IOException ex) {
                throw new IllegalStateException("Cannot read " + f, ex);
            }
        });
    }

    private String where(Path file, String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return root.relativize(file) + ":" + line;
    }

    private static String excerpt(String text, int at) {
        int start = Math.max(text.lastIndexOf('\n', at) + 1, at - 40);
        int end = text.indexOf('\n', at);
        return text.substring(start, Math.min(end < 0 ? text.length() : end, at + 60))
                .strip();
    }

    private static String oneLine(String link) {
        String flat = link.replaceAll("\\s*\\n\\s*", " ");
        // A long image description would hide the target, which is at the end.
        return flat.length() > 120 ? flat.substring(0, 50) + " ... " + flat.substring(flat.length() - 65) : flat;
    }
}
