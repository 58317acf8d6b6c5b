package dev.distlock.spring.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks that the Java examples of Markdown pages can be copied as they are: every type a block
 * names by its simple name is imported by the block, declared in it, or in {@code java.lang}, and
 * every import names a type that exists.
 *
 * <p>A type is any identifier that starts with an upper-case letter and is not reached through a
 * dot ({@code TimeUnit} in {@code TimeUnit.SECONDS}, not {@code SECONDS}); comments and literals are
 * left out first. An import resolves when the class loads on the test class path or its source is in
 * the repository; {@code com.example} stands for the reader's own application, whose types (an
 * {@code Order}, a {@code ReportJob}) an example may import without their existing.
 */
final class JavaExamples {

    private static final Pattern JAVA_FENCE = Pattern.compile("^ {0,3}(`{3,})java\\s*$");

    private static final Pattern IMPORT = Pattern.compile("(?m)^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;");

    private static final Pattern DECLARATION =
            Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z]\\w*)");

    private static final Pattern TYPE_PARAMETERS = Pattern.compile("<\\s*([A-Z]\\w*)(?:\\s*,\\s*([A-Z]\\w*))*\\s*>");

    private static final Pattern UPPER_IDENTIFIER = Pattern.compile("(?<![\\w.$])([A-Z][\\w$]*)");

    // Text blocks first, then strings and characters, then comments.
    private static final Pattern LITERALS_AND_COMMENTS = Pattern.compile(
            "\"\"\"[\\s\\S]*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])+'|//[^\\n]*|/\\*[\\s\\S]*?\\*/");

    private static final String APPLICATION_PACKAGE = "com.example.";

    private JavaExamples() {}

    /** One {@code ```java} block: where it starts and its text. */
    record Block(String location, String code) {}

    /** Every {@code ```java} block of a Markdown text; {@code file} names it in the locations. */
    static List<Block> blocks(String file, String markdown) {
        List<Block> blocks = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher fence = JAVA_FENCE.matcher(lines[i]);
            if (!fence.matches()) {
                continue;
            }
            int start = i + 1;
            StringBuilder code = new StringBuilder();
            for (i = start; i < lines.length && !lines[i].strip().startsWith(fence.group(1)); i++) {
                code.append(lines[i]).append('\n');
            }
            blocks.add(new Block(file + ":" + start, code.toString()));
        }
        return blocks;
    }

    /** The {@code ```java} blocks of the given Markdown files (paths inside {@code root}). */
    static List<Block> blocks(Path root, List<Path> files) throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path file : files) {
            blocks.addAll(blocks(file.toString().replace('\\', '/'), Files.readString(root.resolve(file))));
        }
        return blocks;
    }

    /**
     * What is wrong with a block: each type used without an import, each import that names no type
     * (or a whole package), one line each.
     */
    static List<String> problems(Path root, Block block) {
        String code = blank(LITERALS_AND_COMMENTS.matcher(block.code()));
        List<String> problems = new ArrayList<>();
        Set<String> known = new LinkedHashSet<>();
        Matcher imports = IMPORT.matcher(code);
        while (imports.find()) {
            String name = imports.group(2);
            if (imports.group(3) != null) {
                problems.add(block.location() + ": import " + name + ".* names a whole package; import each type");
                continue;
            }
            boolean isStatic = imports.group(1) != null;
            String type = isStatic ? name.substring(0, name.lastIndexOf('.')) : name;
            if (!exists(root, type)) {
                problems.add(block.location() + ": import " + name
                        + " names no type on the class path or in the repository");
            }
            known.add(name.substring(name.lastIndexOf('.') + 1));
        }
        String body = blank(imports.reset());
        DECLARATION.matcher(body).results().forEach(m -> known.add(m.group(1)));
        Matcher parameters = TYPE_PARAMETERS.matcher(body);
        while (parameters.find()) {
            Stream.of(parameters.group().replaceAll("[<>\\s]", "").split(","))
                    .filter(p -> p.length() == 1)
                    .forEach(known::add);
        }
        Map<String, Integer> missing = new LinkedHashMap<>();
        Matcher used = UPPER_IDENTIFIER.matcher(body);
        while (used.find()) {
            String name = used.group(1);
            if (!known.contains(name) && !isJavaLang(name)) {
                missing.putIfAbsent(name, lineOf(body, used.start()));
            }
        }
        missing.forEach((name, line) -> problems.add(
                block.location() + ": " + name + " (line " + line + " of the block) is neither imported nor declared"));
        return problems;
    }

    // Replaces each match by as many line breaks as it spans, so that line numbers still hold.
    private static String blank(Matcher matcher) {
        return matcher.replaceAll(m ->
                " " + "\n".repeat((int) m.group().chars().filter(c -> c == '\n').count()));
    }

    private static boolean exists(Path root, String type) {
        if (type.startsWith(APPLICATION_PACKAGE)) {
            return true;
        }
        try {
            Class.forName(type, false, JavaExamples.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError ex) {
            return existsAsSource(root, type);
        }
    }

    private static boolean existsAsSource(Path root, String type) {
        String source = "src/main/java/" + type.replace('.', '/') + ".java";
        try (Stream<Path> modules = Files.list(root)) {
            return modules.anyMatch(module -> Files.isRegularFile(module.resolve(source)));
        } catch (IOException ex) {
            return false;
        }
    }

    private static boolean isJavaLang(String name) {
        try {
            Class.forName("java.lang." + name, false, ClassLoader.getPlatformClassLoader());
            return true;
        } catch (ClassNotFoundException ex) {
            return false;
        }
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
