package dev.distlock.core.internal.hold;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.script.LuaScript;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.BooleanGen;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the client's record of its holds as two owners' calls acquire and unlock one lock at
 * once, the same owner from several threads (an explicit owner id used by several tasks) included.
 * Each operation does the bookkeeping its caller does once Redis answered: an acquisition records its
 * grant, an unlock gives back the latest grant and forgets a hold with none left.
 *
 * <p>An unlock spans several calls on the record, so an observer in the middle of one sees a state no
 * single call leaves; the model is therefore the invariant checked after every explored interleaving:
 * the record counts exactly the acquisitions not yet unlocked, and the watchdog renews a hold exactly
 * when one of them took the watchdog lease.
 */
@Tag("model-check")
@Param(name = "owner", gen = IntGen.class, conf = "1:2")
public class LocalHoldsLincheckTests {

    private static final String KEY = "lock";
    private static final LuaScript RENEW = new LuaScript("renew", "return 1", "0", ScriptOutputType.INTEGER);

    private final LocalHolds holds = new LocalHolds();
    /** Per owner: acquisitions recorded and not yet unlocked, as a caller only unlocks what it took. */
    private final List<AtomicInteger> held = List.of(new AtomicInteger(), new AtomicInteger());

    /** Redis granted the owner the lock (afresh or re-entered): the grant is recorded. */
    @Operation
    public void acquire(@Param(name = "owner") int owner, @Param(gen = BooleanGen.class) boolean watchdog) {
        holds.acquired(
                "lock",
                LockKind.REENTRANT,
                KEY,
                owner,
                field(owner),
                RENEW,
                watchdog ? Hold.WATCHDOG : 10_000,
                System.nanoTime(),
                List.of());
        held.get(owner - 1).incrementAndGet();
    }

    /** Redis released one of the owner's acquisitions: the unlock does its bookkeeping, as {@code Release} does. */
    @Operation
    public void unlock(@Param(name = "owner") int owner) {
        if (held.get(owner - 1).getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return;
        }
        Hold hold = holds.get(KEY, field(owner));
        if (hold == null) {
            throw new IllegalStateException("owner " + owner + " has an acquisition to unlock but no hold recorded");
        }
        Object grant = hold.grantToGiveBack();
        holds.releasing(hold);
        int left = holds.released(hold, grant);
        if (left > 0) {
            hold.releasing(false);
        }
    }

    @Validate
    public void recordMatchesTheAcquisitionsNotYetUnlocked() {
        for (int owner = 1; owner <= 2; owner++) {
            Hold hold = holds.get(KEY, field(owner));
            int expected = held.get(owner - 1).get();
            int recorded = hold == null ? 0 : hold.count();
            if (recorded != expected) {
                throw new IllegalStateException("owner " + owner + " has " + expected
                        + " acquisitions not yet unlocked, but " + recorded + " recorded");
            }
            if (hold != null && holds.renewable(hold) != hold.watchdog()) {
                throw new IllegalStateException("owner " + owner + "'s hold is renewable: " + holds.renewable(hold)
                        + ", taken with the watchdog lease: " + hold.watchdog());
            }
        }
    }

    @Test
    void everyInterleavingKeepsTheRecord() {
        new ModelCheckingOptions()
                .iterations(10)
                .invocationsPerIteration(100)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .check(getClass());
    }

    private static String field(int owner) {
        return "client:" + owner;
    }
}
