package dev.distlock.spring.internal.aspect;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The threads that pass a granted {@code CompletionStage} body to the method executor, so that the
 * Redis I/O thread which delivered the grant never calls that executor. Submitting normally returns
 * at once and the thread is free again; an executor that runs a task on the submitting thread
 * ({@code CallerRunsPolicy}) or blocks it until there is room holds one hand-off thread for that
 * long, and the next grant gets another. Threads are daemons, created on demand and gone after a few
 * idle seconds, so nothing is left running when no such method is called; the pool is shared by
 * every application context of the class loader and is never shut down.
 */
final class StageHandOff {

    private static final long KEEP_ALIVE_SECONDS = 10;

    private StageHandOff() {}

    /**
     * Runs the task on a hand-off thread, with the given context class loader (the caller's, so that
     * a body the method executor runs on this thread sees what it would have seen on the caller's).
     * @param loader the context class loader to run the task with
     * @param task what to run
     * @throws java.util.concurrent.RejectedExecutionException if no thread could take it
     */
    static void execute(@Nullable ClassLoader loader, Runnable task) {
        Pool.EXECUTOR.execute(() -> {
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                task.run();
            } finally {
                thread.setContextClassLoader(previous);
            }
        });
    }

    /** Created on first use only. */
    private static final class Pool {

        static final Executor EXECUTOR = create();

        private static Executor create() {
            AtomicInteger count = new AtomicInteger();
            ThreadFactory threads = task -> {
                Thread thread = new Thread(task, "distlock-hand-off-" + count.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            };
            return new ThreadPoolExecutor(
                    0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
        }
    }
}
