package dev.distlock.core.internal.script;

import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Lua script: its name, source, the SHA-1 Redis will know it by, and the reply type.
 *
 * @param name resource name without extension, for messages
 * @param source the Lua source
 * @param sha1 lowercase hex SHA-1 of the source, as {@code SCRIPT LOAD} returns it
 * @param outputType how Lettuce decodes the reply
 */
public record LuaScript(String name, String source, String sha1, ScriptOutputType outputType) {

    private static final String RESOURCE_DIR = "/dev/distlock/core/scripts/";

    /**
     * A line {@code --! include <fragment>} is replaced by {@code fragments/<fragment>.lua}: Redis
     * 6 scripts cannot call each other, so code several scripts need is shared at load time.
     */
    private static final Pattern INCLUDE = Pattern.compile("(?m)^--! include ([\\w-]+)$");

    /**
     * Reads {@code dev/distlock/core/scripts/<name>.lua} from the class path, with its includes expanded.
     * @param name script name without extension
     * @param outputType reply type
     * @return the script
     */
    public static LuaScript load(String name, ScriptOutputType outputType) {
        String source = INCLUDE.matcher(read(RESOURCE_DIR + name + ".lua"))
                .replaceAll(include ->
                        Matcher.quoteReplacement(read(RESOURCE_DIR + "fragments/" + include.group(1) + ".lua")));
        return new LuaScript(name, source, sha1(source), outputType);
    }

    private static String read(String path) {
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script resource " + path + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException("Cannot read Lua script " + path, ex);
        }
    }

    private static String sha1(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", ex);
        }
    }
}
