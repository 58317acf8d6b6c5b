package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Warns once at startup when Distlock prepends a key prefix to lock names and Redisson may lock the
 * same names without it: Distlock's lock {@code name} is the Redis key {@code <prefix>name}, Redisson's
 * is {@code name} unless its {@code NameMapper} adds the same prefix, and two locks on different keys
 * do not exclude each other.
 *
 * <p>What it checks, after all singletons are created:
 * <ul>
 *   <li>the prefix: that of each {@link LockClient} bean already created (so a prefix set by a
 *       {@link DistlockClientCustomizer} or on a client bean of the application counts), or
 *       {@code distlock.key-prefix} when none is created yet; nothing is logged when it is empty;
 *   <li>whether {@code org.redisson.api.RedissonClient} is on the class path of the application
 *       context; nothing is logged when it is not;
 *   <li>each {@code RedissonClient} bean of the context: one whose configured {@code NameMapper} maps a
 *       name to the prefix followed by that name is in step and not reported; any other is named in
 *       the warning. With no such bean, Redisson on the class path alone is reported, since a
 *       client created outside the context cannot be checked.
 * </ul>
 *
 * <p>Beans are read without creating any: a lazy client is not started for the check, and its
 * settings are not read.
 */
final class RedissonKeyPrefixCheck implements SmartInitializingSingleton {

    private static final String REDISSON_CLIENT = "org.redisson.api.RedissonClient";

    private static final Logger logger = LoggerFactory.getLogger(RedissonKeyPrefixCheck.class);

    private static final String PROBE = "distlock-name-probe";

    private final ConfigurableListableBeanFactory beanFactory;

    private final String propertyPrefix;

    RedissonKeyPrefixCheck(ConfigurableListableBeanFactory beanFactory, String propertyPrefix) {
        this.beanFactory = beanFactory;
        this.propertyPrefix = propertyPrefix;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Map<String, String> prefixes = prefixes();
        if (prefixes.isEmpty()) {
            return;
        }
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        if (!ClassUtils.isPresent(REDISSON_CLIENT, classLoader)) {
            return;
        }
        Class<?> redissonType = ClassUtils.resolveClassName(REDISSON_CLIENT, classLoader);
        String[] redissonBeans = beanFactory.getBeanNamesForType(redissonType, true, false);
        prefixes.forEach((prefix, source) -> {
            String found;
            if (redissonBeans.length == 0) {
                found = "Redisson is on the class path (no RedissonClient bean in the context to check)";
            } else {
                List<String> unmapped = new ArrayList<>();
                for (String name : redissonBeans) {
                    if (!mapsWithPrefix(redissonType, name, prefix)) {
                        unmapped.add(name);
                    }
                }
                if (unmapped.isEmpty()) {
                    logger.debug("Every RedissonClient bean maps names with the key prefix '{}' of {}", prefix, source);
                    return;
                }
                found = "RedissonClient bean" + (unmapped.size() > 1 ? "s '" : " '") + String.join("', '", unmapped)
                        + "' do" + (unmapped.size() > 1 ? "" : "es") + " not map names with that prefix";
            }
            logger.warn(
                    "Distlock's key prefix '{}' ({}) puts lock 'x' at Redis key '{}x', and {}: a Redisson lock on "
                            + "the same name is another key, so the two do not exclude each other. If Redisson "
                            + "locks the same names, give its Config a NameMapper that prepends '{}' "
                            + "(Config.setNameMapper), or set no key prefix; see the Redisson migration guide.",
                    prefix,
                    source,
                    prefix,
                    found,
                    prefix);
        });
    }

    /** The non-empty prefixes in use, each with where it comes from. */
    private Map<String, String> prefixes() {
        Map<String, String> prefixes = new LinkedHashMap<>();
        boolean created = false;
        for (String name : beanFactory.getBeanNamesForType(LockClient.class, true, false)) {
            if (!beanFactory.containsSingleton(name)) {
                continue;
            }
            created = true;
            String prefix =
                    beanFactory.getBean(name, LockClient.class).getOptions().keyPrefix();
            if (!prefix.isEmpty()) {
                prefixes.putIfAbsent(
                        prefix,
                        prefix.equals(propertyPrefix) ? "distlock.key-prefix" : "LockClient bean '" + name + "'");
            }
        }
        if (!created && !propertyPrefix.isEmpty()) {
            prefixes.put(propertyPrefix, "distlock.key-prefix");
        }
        return prefixes;
    }

    /**
     * Whether the created Redisson bean's {@code NameMapper} prepends the prefix; {@code false} when
     * the bean is not created yet or its mapper cannot be read. Reflection, through the public types
     * {@code RedissonClient.getConfig()} and {@code Config.getNameMapper()} declare, keeps Redisson a
     * class of the application rather than a dependency of the starter.
     */
    private boolean mapsWithPrefix(Class<?> redissonType, String beanName, String prefix) {
        if (!beanFactory.containsSingleton(beanName)) {
            return false;
        }
        try {
            Object client = beanFactory.getBean(beanName);
            Method getConfig = redissonType.getMethod("getConfig");
            Object config = getConfig.invoke(client);
            if (config == null) {
                return false;
            }
            Method getNameMapper = getConfig.getReturnType().getMethod("getNameMapper");
            Object mapper = getNameMapper.invoke(config);
            if (mapper == null) {
                return false;
            }
            Method map = getNameMapper.getReturnType().getMethod("map", String.class);
            return (prefix + PROBE).equals(map.invoke(mapper, PROBE));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            logger.debug("Could not read the NameMapper of RedissonClient bean '{}'", beanName, ex);
            return false;
        }
    }
}
