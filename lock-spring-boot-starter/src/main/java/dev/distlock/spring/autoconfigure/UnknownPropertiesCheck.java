package dev.distlock.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Warns once at startup about keys under {@code distlock.*} that no Distlock property has (a typo such
 * as {@code distlock.redis.uri} is otherwise ignored without a word), naming the closest known
 * property. The known properties are those of the configuration metadata on the class path, so the
 * check knows every property the metadata documents, maps and lists included. Environment variables
 * are not checked: {@code DISTLOCK_*} variables may belong to other tools.
 */
final class UnknownPropertiesCheck {

    private static final Logger logger = LoggerFactory.getLogger(UnknownPropertiesCheck.class);

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";

    private UnknownPropertiesCheck() {}

    /**
     * Logs a warning for each unknown {@code distlock.*} key.
     * @param environment the environment
     * @param classLoader where to find the configuration metadata
     */
    static void warnUnknown(Environment environment, @Nullable ClassLoader classLoader) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return;
        }
        Map<String, String> known = knownProperties(classLoader);
        if (known.isEmpty()) {
            logger.debug("No distlock.* configuration metadata found; unknown properties are not reported");
            return;
        }
        Map<String, String> uniform = new HashMap<>();
        known.forEach((name, type) -> uniform.put(uniform(name), type));
        Map<String, @Nullable String> unknown = new LinkedHashMap<>();
        for (PropertySource<?> propertySource : configurable.getPropertySources()) {
            if (StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(propertySource.getName())) {
                continue;
            }
            @Nullable ConfigurationPropertySource source = ConfigurationPropertySource.from(propertySource);
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream()
                    .filter(name -> name.getNumberOfElements() > 1
                            && name.getElement(0, ConfigurationPropertyName.Form.UNIFORM)
                                    .equals("distlock"))
                    .filter(name -> !isKnown(name, uniform))
                    .forEach(name -> unknown.putIfAbsent(name.toString(), origin(source, name)));
        }
        unknown.forEach((name, origin) -> logger.warn(
                "Unknown property '{}'{} is ignored; did you mean '{}'?",
                name,
                origin != null ? " (" + origin + ")" : "",
                closest(name, known.keySet())));
    }

    private static boolean isKnown(ConfigurationPropertyName name, Map<String, String> known) {
        // Compared in Boot's uniform form (keyPrefix, key-prefix and key_prefix are one name) and
        // without list indexes (distlock.redlock.nodes[0] is distlock.redlock.nodes).
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            if (!name.isNumericIndex(i)) {
                elements.add(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
            }
        }
        for (int i = 1; i <= elements.size(); i++) {
            String type = known.get(String.join(".", elements.subList(0, i)));
            if (type != null && (type.startsWith("java.util.Map") || i == elements.size())) {
                // A map takes any key below it; anything else must match exactly.
                return true;
            }
        }
        return false;
    }

    private static String uniform(String name) {
        ConfigurationPropertyName parsed = ConfigurationPropertyName.of(name);
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < parsed.getNumberOfElements(); i++) {
            elements.add(parsed.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
        }
        return String.join(".", elements);
    }

    private static @Nullable String origin(ConfigurationPropertySource source, ConfigurationPropertyName name) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        return property != null && property.getOrigin() != null
                ? property.getOrigin().toString()
                : null;
    }

    /**
     * Reads the {@code distlock.*} properties from every metadata file.
     * @return their types by their names
     */
    static Map<String, String> knownProperties(@Nullable ClassLoader classLoader) {
        Map<String, String> known = new HashMap<>();
        ClassLoader loader = classLoader != null ? classLoader : UnknownPropertiesCheck.class.getClassLoader();
        try {
            Enumeration<URL> files = loader.getResources(METADATA);
            while (files.hasMoreElements()) {
                String json;
                try (InputStream in = files.nextElement().openStream()) {
                    json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                Object properties =
                        JsonParserFactory.getJsonParser().parseMap(json).get("properties");
                if (!(properties instanceof List<?> list)) {
                    continue;
                }
                for (Object entry : list) {
                    if (entry instanceof Map<?, ?> property
                            && property.get("name") instanceof String propertyName
                            && propertyName.startsWith("distlock.")) {
                        Object type = property.get("type");
                        known.put(propertyName, type instanceof String t ? t : "");
                    }
                }
            }
        } catch (IOException | RuntimeException ex) {
            logger.debug("Could not read the configuration metadata", ex);
            return Map.of();
        }
        return known;
    }

    /** The known name at the least edit distance (Levenshtein) from the given one. */
    static String closest(String name, Iterable<String> known) {
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = distance(name, candidate);
            if (distance < bestDistance || (distance == bestDistance && candidate.compareTo(best) < 0)) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
