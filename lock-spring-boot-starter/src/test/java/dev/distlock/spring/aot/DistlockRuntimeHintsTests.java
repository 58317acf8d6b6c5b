package dev.distlock.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.LockedService;
import dev.distlock.spring.OnFailure;
import dev.distlock.spring.internal.actuator.DistlockEndpointReplies;
import dev.distlock.spring.internal.aot.DistlockRuntimeHints;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

/** Native-image hints: every Lua script and fragment, fallback methods, endpoint response types. */
class DistlockRuntimeHintsTests {

    @Test
    void shouldCoverEveryScriptAndEveryFragment() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new DistlockRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(scriptResources())
                .allSatisfy(path -> assertThat(RuntimeHintsPredicates.resource().forResource(path))
                        .as(path)
                        .accepts(hints));
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/core/scripts/notes.txt"))
                .rejects(hints);
    }

    @Test
    void shouldRegisterHintsForFallbacksScriptsAndEndpointTypesThroughAotFactories() throws Exception {
        RuntimeHints hints = aheadOfTime(LockedService.class);

        Method fallback = ReflectionUtils.findMethod(LockedService.class, "busy", String.class);
        Method locked = ReflectionUtils.findMethod(LockedService.class, "withFallback", String.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(fallback))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(locked))
                .rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(LockedService.class))
                .accepts(hints);
        assertThat(scriptResources())
                .allSatisfy(path -> assertThat(RuntimeHintsPredicates.resource().forResource(path))
                        .as(path)
                        .accepts(hints));
        Method clientId = ReflectionUtils.findMethod(DistlockEndpointReplies.LocksReport.class, "clientId");
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(clientId))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(DistlockEndpointReplies.LockState.class))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(DistlockEndpointReplies.ForceUnlockResult.class))
                .accepts(hints);
    }

    @Test
    void shouldRegisterTheFallbackOfASemaphoreMethodAsOfALockMethod() {
        RuntimeHints hints = aheadOfTime(PartnerCalls.class);

        Method fallback = ReflectionUtils.findMethod(PartnerCalls.class, "cached", String.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(fallback))
                .as("the semaphore method's fallback, invoked reflectively when no permit comes")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(PartnerCalls.class))
                .as("the bean whose semaphore annotation is read at run time")
                .accepts(hints);
    }

    /** The hints Spring AOT registers for an application context holding one bean of the given class. */
    private RuntimeHints aheadOfTime(Class<?> beanClass) {
        GenericApplicationContext context = new GenericApplicationContext();
        context.registerBean(beanClass);
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(getClass().getPackageName(), beanClass.getSimpleName() + "App")),
                new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        return generation.getRuntimeHints();
    }

    /** A bean throttled by a semaphore, with a fallback for callers that get no permit. */
    public static class PartnerCalls {

        @DistributedSemaphore(
                key = "'partner-api'",
                permits = 2,
                waitTime = "100ms",
                onFailure = OnFailure.FALLBACK,
                fallback = "cached")
        public String quote(String sku) {
            return "live " + sku;
        }

        public String cached(String sku) {
            return "cached " + sku;
        }
    }

    /** Every script file lock-core ships and every fragment file, as class-path resource paths. */
    private static List<String> scriptResources() throws Exception {
        List<String> paths = new ArrayList<>();
        // Found on the class path rather than listed by lock-core, whose script registry is internal.
        Resource[] scripts = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:" + DistlockRuntimeHints.SCRIPTS + "*.lua");
        assertThat(scripts).as("lock-core's scripts").hasSizeGreaterThanOrEqualTo(10);
        for (Resource script : scripts) {
            paths.add(DistlockRuntimeHints.SCRIPTS + script.getFilename());
        }
        Resource[] fragments = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:" + DistlockRuntimeHints.SCRIPTS + "fragments/*.lua");
        assertThat(fragments).isNotEmpty();
        for (Resource fragment : fragments) {
            paths.add(DistlockRuntimeHints.SCRIPTS + "fragments/" + fragment.getFilename());
        }
        return paths;
    }
}
