package dev.distlock.core.internal.engine;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The thread that runs the steps of lock calls that may block because they open connections,
 * for callers that must not block: connecting is the one step of a lock call that cannot be
 * asynchronous with the connectors' lazy opening. It runs while there are steps and ends when it
 * finds none, so an idle client keeps no thread.
 */
final class ConnectingThread {

    /**
     * Steps waiting for the thread. A lock-free queue, not an executor's: handing a step over must
     * not park the caller, which may be an event loop.
     */
    private final Queue<Runnable> steps = new ConcurrentLinkedQueue<>();
    /** Whether the thread runs. */
    private final AtomicBoolean runs = new AtomicBoolean();

    private final String name;

    /** @param clientId the client's id, whose start names the thread */
    ConnectingThread(String clientId) {
        this.name = "distlock-connect-" + clientId.substring(0, 8);
    }

    /**
     * Runs a step on the thread, starting the thread if it does not run.
     * @param step the step; it must not throw
     */
    void run(Runnable step) {
        steps.add(step);
        if (runs.compareAndSet(false, true)) {
            Thread thread = new Thread(this::drain, name);
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Runs the waiting steps until none is left; a step added as it stops starts it again. Also used at close. */
    void drain() {
        do {
            Runnable step;
            while ((step = steps.poll()) != null) {
                step.run();
            }
            runs.set(false);
        } while (!steps.isEmpty() && runs.compareAndSet(false, true));
    }
}
