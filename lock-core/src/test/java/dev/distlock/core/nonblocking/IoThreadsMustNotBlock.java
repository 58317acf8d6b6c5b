package dev.distlock.core.nonblocking;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Fails every test during which a Redis I/O thread blocked. Registered for all of the core's tests
 * (JUnit's extension auto-detection, {@code META-INF/services}), it installs BlockHound with
 * Lettuce's event-loop threads marked non-blocking: a call that waits there (a future's
 * {@code get}, a sleep, a contended {@code java.util.concurrent} lock) is recorded, with its stack,
 * as a {@link BlockingOperationError}, and the test running then fails with it. The call itself
 * goes on: an error thrown inside Lettuce can leave a connection that never closes, and a hung
 * test JVM says less than a failed test. Work that must wait belongs on the engine's connecting
 * thread or on the caller's.
 *
 * <p>BlockHound instruments JDK classes, which JDK 13+ allows only with
 * {@value #JVM_OPTION}: the Surefire executions of the core pass it, except the model-checking one,
 * whose agent rewrites classes of its own. Without it nothing is installed, and
 * {@code IoThreadsMustNotBlockTests} fails wherever the option was expected.
 */
public final class IoThreadsMustNotBlock implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private static final Logger log = LoggerFactory.getLogger(IoThreadsMustNotBlock.class);

    static final String JVM_OPTION = "-XX:+AllowRedefinitionToAddDeleteMethods";

    /** Lettuce's I/O threads, whatever the transport: lettuce-nioEventLoop-4-1, lettuce-epollEventLoop-…. */
    private static final Pattern IO_THREAD = Pattern.compile("lettuce-\\w+EventLoop-.*");

    private static final List<BlockingOperationError> caught = new ArrayList<>();
    private static final List<String> where = new ArrayList<>();
    private static boolean installed;

    /**
     * Installs BlockHound once per JVM, where the JVM allows it.
     * @return whether it is installed
     */
    public static synchronized boolean install() {
        if (installed) {
            return true;
        }
        if (!ManagementFactory.getRuntimeMXBean().getInputArguments().contains(JVM_OPTION)) {
            return false;
        }
        // The integrations found on the class path (Netty's, Reactor's) allow their libraries' own brief
        // waits; their choice of threads is replaced: Netty's would watch every Netty thread, Redisson's
        // (an interoperability test's other client) among them, which are not this project's to fix.
        BlockHound.builder()
                .loadIntegrations()
                .nonBlockingThreadPredicate(integrations ->
                        thread -> IO_THREAD.matcher(thread.getName()).matches())
                // Writing log lines is the appender's I/O, not the engine's; the test configuration
                // appends synchronously.
                .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "subAppend")
                // Lettuce's own brief guard of a connection's command queue while it activates or closes.
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "doExclusive")
                // Lettuce's cluster connection pool guarding its node connections' settings as one opens.
                .allowBlockingCallsInside(
                        "io.lettuce.core.cluster.PooledClusterConnectionProvider$NodeConnectionPostProcessor",
                        "lambda$apply$4")
                // Netty's buffer pool updating its shared magazines under a lock of its own, held briefly.
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
                // The JDK timer's queue lock, held only to enqueue a delay or remove a cancelled one.
                .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "offer")
                .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
                // A test that pins a race by waiting on an I/O thread on purpose says so (onPurpose).
                .allowBlockingCallsInside(IoThreadsMustNotBlock.class.getName(), "onPurpose")
                .blockingMethodCallback(method -> record(new BlockingOperationError(method)))
                .install();
        installed = true;
        return true;
    }

    /**
     * Runs a wait that a test makes on a Redis I/O thread on purpose, to pin a race there; it is not a
     * finding. Never for the code under test.
     * @param wait the wait
     */
    public static void onPurpose(Runnable wait) {
        wait.run();
    }

    private static synchronized void record(BlockingOperationError error) {
        caught.add(error);
        where.add(Thread.currentThread().getName());
        // Also at once: should the blocked call never return, the test's report would come too late.
        // Logged (appending is allowed above), not printed: a print would be a blocking call itself.
        log.error("Blocking call on a Redis I/O thread", error);
    }

    /**
     * Takes the blocking calls recorded so far.
     * @return a report of each, with its thread and stack; empty when none
     */
    public static synchronized List<String> drain() {
        List<String> reports = new ArrayList<>(caught.size());
        for (int i = 0; i < caught.size(); i++) {
            StringWriter trace = new StringWriter();
            caught.get(i).printStackTrace(new PrintWriter(trace));
            reports.add("on " + where.get(i) + ": " + trace);
        }
        caught.clear();
        where.clear();
        return reports;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        failIfBlocked(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        failIfBlocked(context);
    }

    private static void failIfBlocked(ExtensionContext context) {
        BlockingOperationError first;
        List<String> reports;
        synchronized (IoThreadsMustNotBlock.class) {
            first = caught.isEmpty() ? null : caught.get(0);
            reports = drain();
        }
        if (first != null) {
            AssertionError failure =
                    new AssertionError(reports.size() + " blocking call(s) on a Redis I/O thread during "
                            + context.getDisplayName() + ":\n" + String.join("\n", reports));
            failure.initCause(first);
            throw failure;
        }
    }
}
