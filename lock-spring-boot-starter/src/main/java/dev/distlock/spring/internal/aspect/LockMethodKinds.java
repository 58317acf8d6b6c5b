package dev.distlock.spring.internal.aspect;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Sorts a {@code @DistributedLock} method by its return type into the ways the lock can follow its
 * work to the end, and refuses, naming the method, the types whose end cannot be observed.
 */
final class LockMethodKinds {

    private LockMethodKinds() {}

    private static final boolean REACTOR_PRESENT =
            ClassUtils.isPresent("reactor.core.publisher.Mono", LockMethodKinds.class.getClassLoader());

    private static final boolean COROUTINES_REACTOR_PRESENT =
            ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockMethodKinds.class.getClassLoader());

    /**
     * Decides how the lock follows the method's result. Only results whose end can be observed
     * without blocking are accepted: anything else would release the lock while its work still runs.
     */
    static LockMethod.Kind kind(Method method, String where) {
        Class<?> returnType = method.getReturnType();
        String name = returnType.getName();
        if (KotlinDetector.isSuspendingFunction(method)) {
            if (!COROUTINES_REACTOR_PRESENT || !REACTOR_PRESENT) {
                throw new IllegalStateException(where + ": a suspend function is locked through Reactor; add "
                        + "org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the classpath");
            }
            return LockMethod.Kind.SUSPEND;
        }
        if (returnType == java.util.concurrent.Future.class
                || (java.util.concurrent.Future.class.isAssignableFrom(returnType)
                        && !CompletionStage.class.isAssignableFrom(returnType))) {
            throw new IllegalStateException(where + ": return type " + name + " cannot be held to completion "
                    + "(a Future cannot be observed); return CompletableFuture or CompletionStage");
        }
        if (java.util.stream.BaseStream.class.isAssignableFrom(returnType)) {
            throw new IllegalStateException(where + ": return type " + name + " is consumed after the method "
                    + "returns, when the lock is released; return a List or a Flux instead");
        }
        if (name.equals("reactor.core.publisher.Mono")) {
            return LockMethod.Kind.MONO;
        }
        if (name.equals("reactor.core.publisher.Flux")) {
            return LockMethod.Kind.FLUX;
        }
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            if (!returnType.isAssignableFrom(CompletableFuture.class)) {
                throw new IllegalStateException(where + ": return type " + name
                        + " is not supported; declare CompletionStage or CompletableFuture");
            }
            return LockMethod.Kind.COMPLETION_STAGE;
        }
        if (adapter(returnType) != null) {
            if (!REACTOR_PRESENT) {
                throw new IllegalStateException(where + ": return type " + name + " is locked through Reactor; add "
                        + "io.projectreactor:reactor-core to the classpath");
            }
            return LockMethod.Kind.ADAPTED;
        }
        if (isPublisher(returnType)) {
            throw new IllegalStateException(where + ": return type " + name + " is a reactive type the lock "
                    + "cannot follow (no ReactiveAdapter converts it back); return a Mono, Flux, CompletionStage "
                    + "or a type registered in Spring's ReactiveAdapterRegistry");
        }
        return LockMethod.Kind.SYNC;
    }

    /**
     * Returns the adapter that turns the return type into a {@code Publisher} and back, if Spring's
     * registry has one whose own type the method may return; a subtype of a registered type (a
     * custom {@code Publisher}) has none, since the adapter could not build it.
     */
    static @Nullable ReactiveAdapter adapter(Class<?> returnType) {
        if (returnType == Object.class || returnType.isPrimitive()) {
            return null;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
        return adapter != null && returnType.isAssignableFrom(adapter.getReactiveType()) ? adapter : null;
    }

    private static boolean isPublisher(Class<?> type) {
        if (java.util.concurrent.Flow.Publisher.class.isAssignableFrom(type)) {
            return true;
        }
        for (String name : new String[] {
            "org.reactivestreams.Publisher",
            "kotlinx.coroutines.flow.Flow",
            "io.reactivex.rxjava3.core.Single",
            "io.reactivex.rxjava3.core.Maybe",
            "io.reactivex.rxjava3.core.Completable",
            "io.reactivex.rxjava3.core.Observable"
        }) {
            if (ClassUtils.isPresent(name, type.getClassLoader())) {
                try {
                    if (ClassUtils.forName(name, type.getClassLoader()).isAssignableFrom(type)) {
                        return true;
                    }
                } catch (ClassNotFoundException | LinkageError ex) {
                    // not loadable from here: not this type
                }
            }
        }
        return false;
    }
}
