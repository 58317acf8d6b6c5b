package dev.distlock.core.internal.hold;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the marks of uncertain acquisitions: every interleaving of two owners' attempts being
 * marked, answered, lost, adopted and given up must leave what some sequential order of the same calls
 * leaves, as {@code contains} and {@code inFlight} see it. Lincheck runs the class itself one call after
 * another as the sequential model.
 */
@Tag("model-check")
@Param(name = "owner", gen = IntGen.class, conf = "1:2")
public class UncertainAcquisitionsLincheckTests {

    private final UncertainAcquisitions marks = new UncertainAcquisitions();
    private final List<ConcurrentLinkedQueue<CompletableFuture<String>>> callers =
            List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
    private final AtomicInteger attemptIds = new AtomicInteger();

    @Operation
    public void begin(@Param(name = "owner") int owner) {
        CompletableFuture<String> toCaller = new CompletableFuture<>();
        marks.begin(id(owner), "attempt-" + attemptIds.incrementAndGet(), toCaller);
        callers.get(owner - 1).add(toCaller);
    }

    /** The reply of the owner's oldest attempt still in flight reaches its caller. */
    @Operation
    public boolean reply(@Param(name = "owner") int owner) {
        return callers.get(owner - 1).stream().anyMatch(caller -> caller.complete("granted"));
    }

    /** The caller of the owner's oldest attempt in flight stops waiting (timeout, cancel): its reply is lost. */
    @Operation
    public boolean lose(@Param(name = "owner") int owner) {
        return callers.get(owner - 1).stream().anyMatch(caller -> caller.cancel(false));
    }

    @Operation
    public boolean contains(@Param(name = "owner") int owner) {
        return marks.contains(id(owner));
    }

    @Operation
    public boolean inFlight(@Param(name = "owner") int owner) {
        return marks.inFlight(id(owner));
    }

    @Operation
    public void acquired(@Param(name = "owner") int owner) {
        marks.acquired(id(owner));
    }

    /** The owner gives up; its clean-up release is answered at once. */
    @Operation
    public void gaveUp(@Param(name = "owner") int owner) {
        marks.gaveUp(id(owner), lostIds -> CompletableFuture.completedFuture(null), 1_000, null, "lock");
    }

    @Test
    void everyInterleavingIsLinearizable() {
        new ModelCheckingOptions()
                .iterations(10)
                .invocationsPerIteration(60)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2)
                .check(getClass());
    }

    private static String id(int owner) {
        return "lock:" + owner;
    }
}
