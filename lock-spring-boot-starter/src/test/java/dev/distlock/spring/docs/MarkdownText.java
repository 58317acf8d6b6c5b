package dev.distlock.spring.docs;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What GitHub makes of a Markdown text that matters for links: which parts are code (not Markdown)
 * and which anchors its headings get.
 *
 * <p>Anchors follow GitHub's rule: the heading's text, lowercased, with everything but letters,
 * digits, spaces, {@code -} and {@code _} dropped and spaces turned into {@code -}; a repeated
 * heading gets {@code -1}, {@code -2}, ...
 */
final class MarkdownText {

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}[ \\t]+(.*?)(?:[ \\t]+#+)?[ \\t]*$");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    private MarkdownText() {}

    /**
     * GitHub's anchor for a heading's Markdown text: inline markup rendered away, lowercased,
     * punctuation other than {@code -} and {@code _} dropped, spaces turned into {@code -}.
     */
    static String anchor(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replaceAll("<[^>]+>", "");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}\\-_ ]", "")
                .replace(' ', '-');
    }

    /** The anchors a Markdown text defines: its headings' (de-duplicated as GitHub does) and HTML ones. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            Matcher opening = FENCE.matcher(line);
            if (opening.find()) {
                String marker = opening.group(1);
                if (fence == null) {
                    fence = marker;
                } else if (marker.charAt(0) == fence.charAt(0) && marker.length() >= fence.length()) {
                    fence = null;
                }
                continue;
            }
            if (fence != null) {
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String anchor = anchor(heading.group(1));
                int repeat = seen.merge(anchor, 1, Integer::sum) - 1;
                anchors.add(repeat == 0 ? anchor : anchor + "-" + repeat);
            }
            Matcher html = HTML_ANCHOR.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /**
     * {@code markdown} with fenced blocks and code spans blanked out; line breaks and offsets are
     * kept so that positions still name the right line.
     */
    static String withoutCode(String markdown) {
        StringBuilder out = new StringBuilder(markdown.length());
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            Matcher opening = FENCE.matcher(line);
            boolean fenceLine = opening.find();
            if (fenceLine && fence == null) {
                fence = opening.group(1);
                out.append(" ".repeat(line.length()));
            } else if (fence != null) {
                if (fenceLine
                        && opening.group(1).charAt(0) == fence.charAt(0)
                        && opening.group(1).length() >= fence.length()) {
                    fence = null;
                }
                out.append(" ".repeat(line.length()));
            } else {
                Matcher span = CODE_SPAN.matcher(line);
                out.append(span.replaceAll(match -> " ".repeat(match.group().length())));
            }
            out.append('\n');
        }
        out.setLength(out.length() - 1);
        return out.toString();
    }
}
