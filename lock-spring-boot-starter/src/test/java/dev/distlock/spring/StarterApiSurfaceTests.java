package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;

/**
 * What the starter lets users touch: no supported type leaks an internal one through a public or
 * protected signature, and an internal type is public only for a reason written down here.
 */
class StarterApiSurfaceTests {

    private static final String INTERNAL = "dev.distlock.spring.internal";

    /** Internal types that must be public, and why; anything else in the package is package-private. */
    private static final Map<String, String> PUBLIC_INTERNALS = Map.ofEntries(
            // Loaded by name by Spring, ServiceLoader or context-propagation.
            Map.entry("DistlockRuntimeHints", "aot.factories"),
            Map.entry("DistributedLockAotProcessor", "aot.factories"),
            Map.entry("LockContextAccessor", "META-INF/services"),
            // Constructed or named by an auto-configuration, which lives in another package.
            Map.entry("DefaultLockTemplate", "LockTemplate bean"),
            Map.entry("DistlockEndpoint", "endpoint bean; users may replace it"),
            Map.entry("DistlockHealthIndicator", "health contributor bean"),
            Map.entry("RedLockHealthIndicators", "health contributor bean"),
            Map.entry("DistlockShutdown", "lifecycle bean"),
            Map.entry("DistlockStartupException", "thrown by auto-configuration, analysed by the failure analyzer"),
            Map.entry("DistributedLockAdvisor", "advisor bean"),
            Map.entry("FirstUseSupplier", "used by auto-configurations"),
            Map.entry("HoldIndex", "bean shared by the client, the executor and the endpoint"),
            Map.entry("LockExecutor", "bean shared by the template, the advisor and the shutdown"),
            Map.entry("LockObserver", "type of the observer beans"),
            Map.entry("MicrometerLockObserver", "observer bean"),
            Map.entry("ObservationLockObserver", "observer bean"),
            Map.entry("PermitEventObserver", "observer bean"),
            Map.entry("LockNameTagLimit", "meter filter bean"),
            Map.entry("ObservationEventMeters", "meter filter bean"),
            Map.entry("LockEventLog", "event log bean"),
            Map.entry("LockEventsReport", "serialized by the endpoint"),
            Map.entry("DistlockEndpointReplies", "the endpoint's reply types, serialized by Actuator"),
            Map.entry("ReactiveLockSupport", "bean present only with Reactor"),
            Map.entry("RedLockClients", "bean of the red-lock node clients"),
            Map.entry("LockNameSettings", "built by DistlockProperties for the advisor and the template"),
            // Used by a bridge in another package (dev.distlock.spring.shedlock).
            Map.entry("BridgeLocks", "holds of the ShedLock bridge, through the starter's executor"),
            Map.entry("RegistryHolds", "holds of the Spring Integration registry, told to the starter's observers"),
            Map.entry("StringKeyHold", "a registry hold on a plain string key, listed by the endpoint"),
            // Set by the interceptor and template, read by the public LockContext in another package.
            Map.entry("CurrentLockContext", "backs LockContext"),
            // Named by another internal room (internal.hold is shared by the aspect, the template,
            // the observers and the actuator).
            Map.entry("Hold", "hold runtime; held by the aspect and the template, read by the actuator"),
            Map.entry("LockRequest", "hold runtime; built by the aspect and the template, read by the observers"));

    @Test
    void whenATypeIsSupportedThenNoPublicOrProtectedSignatureNamesAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : starterClasses()) {
            if (isInternal(type) || !isVisible(type.getModifiers())) {
                continue;
            }
            for (Method method : type.getDeclaredMethods()) {
                if (isVisible(type, method.getModifiers()) && !method.isSynthetic()) {
                    check(
                            leaks,
                            method,
                            Stream.concat(
                                            Stream.of(method.getGenericReturnType()),
                                            Stream.of(method.getGenericParameterTypes()))
                                    .toList());
                }
            }
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                if (isVisible(type, constructor.getModifiers())) {
                    check(leaks, constructor, List.of(constructor.getGenericParameterTypes()));
                }
            }
            for (Field field : type.getDeclaredFields()) {
                if (isVisible(type, field.getModifiers()) && mentionsInternal(field.getGenericType())) {
                    leaks.add(type.getName() + "." + field.getName());
                }
            }
        }
        assertThat(leaks).as("supported signatures naming internal types").isEmpty();
    }

    @Test
    void whenAnInternalTypeIsPublicThenItIsForAWrittenReason() throws Exception {
        Map<String, String> publicInternals = new TreeMap<>();
        for (Class<?> type : starterClasses()) {
            if (isInternal(type) && type.getEnclosingClass() == null && Modifier.isPublic(type.getModifiers())) {
                publicInternals.put(type.getSimpleName(), PUBLIC_INTERNALS.getOrDefault(type.getSimpleName(), "?"));
            }
        }
        assertThat(publicInternals)
                .as(
                        "public types in %s and its rooms; make a new one package-private, or add it here with its reason",
                        INTERNAL)
                .doesNotContainValue("?")
                .containsOnlyKeys(PUBLIC_INTERNALS.keySet());
    }

    /** The internal package or one of its rooms ({@code internal.hold}, {@code internal.aspect}, ...). */
    private static boolean isInternal(Class<?> type) {
        return type.getPackageName().equals(INTERNAL) || type.getPackageName().startsWith(INTERNAL + ".");
    }

    private static void check(List<String> leaks, Executable member, List<Type> types) {
        if (types.stream().anyMatch(StarterApiSurfaceTests::mentionsInternal)) {
            leaks.add(member.toGenericString());
        }
    }

    private static boolean mentionsInternal(Type type) {
        // The generic string names every type argument too, e.g. List<dev.distlock.spring.internal.hold.Hold>.
        return type.getTypeName().contains(INTERNAL + ".");
    }

    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** A protected member of a final class is out of users' reach, e.g. a failure analyzer's override. */
    private static boolean isVisible(Class<?> owner, int modifiers) {
        return Modifier.isPublic(modifiers)
                || (Modifier.isProtected(modifiers) && !Modifier.isFinal(owner.getModifiers()));
    }

    private static List<Class<?>> starterClasses() throws IOException, ClassNotFoundException {
        ClassLoader loader = StarterApiSurfaceTests.class.getClassLoader();
        List<Class<?>> classes = new ArrayList<>();
        for (Resource resource : new PathMatchingResourcePatternResolver(loader)
                .getResources("classpath*:dev/distlock/spring/**/*.class")) {
            String url = resource.getURL().toString();
            // Main classes only: the test classes share the packages.
            if (url.contains("/test-classes/")) {
                continue;
            }
            String path = url.substring(url.indexOf("dev/distlock/spring/"), url.length() - ".class".length());
            classes.add(ClassUtils.forName(path.replace('/', '.'), loader));
        }
        assertThat(classes).as("starter classes found").hasSizeGreaterThan(50);
        return classes;
    }
}
