package dev.distlock.core.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each script's header ({@code -- KEYS[n] name} and {@code -- ARGV[n] name} lines, the name ending
 * at a colon) must list exactly the parameters its typed wrapper builds, in the same order, and the
 * script must not read a KEYS or ARGV index its header does not document.
 */
class ScriptHeaderTests {

    /** {@code -- KEYS[1] lock key: ...}; a variable index ({@code i}, {@code i+1}) marks a batch script. */
    private static final Pattern HEADER_LINE = Pattern.compile("^-- (KEYS|ARGV)\\[([^\\]]+)\\] ([^:]+?)\\s*(?::.*)?$");

    private static final Pattern USE = Pattern.compile("\\b(KEYS|ARGV)\\[(\\d+)\\]");

    static Stream<ScriptSignature> signatures() {
        return Stream.of(
                ReentrantAcquire.SIGNATURE,
                ReentrantRelease.SIGNATURE,
                ReentrantPassWakeup.SIGNATURE,
                FencedAcquire.SIGNATURE,
                ForceRelease.SIGNATURE,
                FairAcquire.SIGNATURE,
                FairRelease.SIGNATURE,
                FairAbandon.SIGNATURE,
                FairForceRelease.SIGNATURE,
                ReadAcquire.SIGNATURE,
                ReadRelease.SIGNATURE,
                WriteAcquire.SIGNATURE,
                WriteRelease.SIGNATURE,
                WriteAbandon.SIGNATURE,
                ReadWriteForceRelease.SIGNATURE,
                RenewHolds.RENEW,
                RenewHolds.READ_RENEW,
                RenewHolds.WRITE_RENEW,
                MultiAcquire.SIGNATURE,
                MultiRelease.SIGNATURE,
                SemaphoreAcquire.SIGNATURE,
                SemaphoreRelease.SIGNATURE,
                SemaphoreSetPermits.SIGNATURE,
                SemaphoreAvailable.SIGNATURE,
                SemaphoreTaken.SIGNATURE,
                SemaphoreRenew.SIGNATURE);
    }

    @Test
    void shouldHaveOneWrapperForEveryScript() {
        assertThat(signatures().map(ScriptSignature::script).toList())
                .containsExactlyInAnyOrderElementsOf(Scripts.all());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("signatures")
    void shouldDocumentTheParametersOfItsWrapperInOrder(ScriptSignature signature) throws IOException {
        Header header = Header.parse(resource(signature.script().name()));
        assertThat(header.problems)
                .as("numbering of %s", signature.script().name())
                .isEmpty();
        assertThat(header.keys).as("KEYS of %s", signature.script().name()).containsExactlyElementsOf(signature.keys());
        assertThat(header.args).as("ARGV of %s", signature.script().name()).containsExactlyElementsOf(signature.args());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("signatures")
    void shouldUseNoIndexBeyondItsHeader(ScriptSignature signature) throws IOException {
        String source = resource(signature.script().name());
        Header header = Header.parse(source);
        // The expanded source, without comments: fragments are checked with the script that includes them.
        String body = signature.script().source().replaceAll("--[^\n]*", "");
        assertThat(undocumented(header, body))
                .as("undocumented KEYS/ARGV in %s", signature.script().name())
                .isEmpty();
    }

    @Test
    void shouldFindAnIndexBeyondTheHeader() {
        Header header = Header.parse("-- KEYS[1] lock key\n-- ARGV[1] lease in ms\n");
        assertThat(undocumented(header, "redis.call('pexpire', KEYS[1], ARGV[2])"))
                .containsExactly("ARGV[2]");
    }

    /** @return every {@code KEYS[n]} or {@code ARGV[n]} in the body whose n the header does not number */
    private static List<String> undocumented(Header header, String body) {
        Matcher use = USE.matcher(body);
        List<String> beyond = new ArrayList<>();
        while (use.find()) {
            int index = Integer.parseInt(use.group(2));
            int documented = use.group(1).equals("KEYS") ? header.numberedKeys : header.numberedArgs;
            if (index < 1 || index > documented) {
                beyond.add(use.group());
            }
        }
        return beyond;
    }

    @Test
    void shouldRejectAHeaderWhoseNumbersAreOutOfOrder() {
        Header header = Header.parse("-- KEYS[2] lock key\n-- ARGV[1] lease in ms\n");
        assertThat(header.problems).containsExactly("KEYS[2] is entry 1");
    }

    @Test
    void shouldReadANameUpToItsColonAndSkipContinuationLines() {
        Header header = Header.parse("-- KEYS[1] lock key\n-- ARGV[1] acquire mode: '1' when\n--         more text\n"
                + "-- ARGV[2] owner field\n-- Returns nil\n");
        assertThat(header.keys).containsExactly("lock key");
        assertThat(header.args).containsExactly("acquire mode", "owner field");
        assertThat(header.problems).isEmpty();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in =
                ScriptHeaderTests.class.getResourceAsStream("/dev/distlock/core/scripts/" + name + ".lua")) {
            assertThat(in).as("script resource %s", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The parameter lines of a script's header, with the numbering checked. */
    private static final class Header {

        final List<String> keys = new ArrayList<>();
        final List<String> args = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        int numberedKeys;
        int numberedArgs;

        static Header parse(String source) {
            Header header = new Header();
            for (String line : source.split("\n")) {
                if (!line.startsWith("--")) {
                    break;
                }
                Matcher matcher = HEADER_LINE.matcher(line);
                if (!matcher.matches()) {
                    continue;
                }
                boolean isKey = matcher.group(1).equals("KEYS");
                List<String> names = isKey ? header.keys : header.args;
                names.add(matcher.group(3));
                String index = matcher.group(2);
                if (index.chars().allMatch(Character::isDigit)) {
                    if (Integer.parseInt(index) != names.size()) {
                        header.problems.add(matcher.group(1) + "[" + index + "] is entry " + names.size());
                    }
                    if (isKey) {
                        header.numberedKeys++;
                    } else {
                        header.numberedArgs++;
                    }
                }
            }
            return header;
        }
    }
}
