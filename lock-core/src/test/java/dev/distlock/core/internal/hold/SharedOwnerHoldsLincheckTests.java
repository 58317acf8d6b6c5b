package dev.distlock.core.internal.hold;

import dev.distlock.core.LockKind;
import dev.distlock.core.internal.script.LuaScript;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.BooleanGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Model checks the record of one owner's holds when several tasks share the owner id and the replies
 * of their calls are booked in another order than Redis applied the calls: each operation first lets
 * "Redis" apply its call (a count, as the hash field holds it), then books the reply as the client
 * does, and the model checker interleaves the two halves of every call with the others'. Once every
 * call has been booked, the record must count exactly what Redis counts, and the watchdog must renew
 * the hold exactly when one of the recorded grants took the watchdog lease; an unlock decides nothing
 * from the record but which grant it gives back, as {@code Release} does.
 */
@Tag("model-check")
public class SharedOwnerHoldsLincheckTests {

    private static final String KEY = "lock";
    private static final String FIELD = "client:-1";
    private static final LuaScript RENEW = new LuaScript("renew", "return 1", "0", ScriptOutputType.INTEGER);

    private final LocalHolds holds = new LocalHolds();
    /** What Redis counts for the owner: grants applied minus releases applied. */
    private final AtomicInteger redis = new AtomicInteger();
    /** Grants whose caller was told it holds the lock and has not started its unlock: a task unlocks only what it took. */
    private final AtomicInteger taken = new AtomicInteger();

    /** A task's acquisition: Redis grants it, then the reply is booked on the task's own thread. */
    @Operation
    public void acquire(@Param(gen = BooleanGen.class) boolean watchdog) {
        redis.incrementAndGet();
        holds.acquired(
                "lock",
                LockKind.REENTRANT,
                KEY,
                -1,
                FIELD,
                RENEW,
                watchdog ? Hold.WATCHDOG : 10_000,
                System.nanoTime(),
                List.of());
        taken.incrementAndGet();
    }

    /** A task's unlock, when it holds one: it picks the grant to give back, Redis releases one hold, the reply is booked. */
    @Operation
    public void unlock() {
        if (taken.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return;
        }
        Hold hold = holds.get(KEY, FIELD);
        if (hold == null) {
            throw new IllegalStateException("a task holds the lock but no hold is recorded");
        }
        Object grant = hold.grantToGiveBack();
        holds.releasing(hold);
        if (redis.decrementAndGet() < 0) {
            throw new IllegalStateException("Redis released a hold it did not count");
        }
        if (holds.released(hold, grant) > 0) {
            hold.releasing(false);
        }
    }

    @Validate
    public void recordMatchesWhatRedisCounts() {
        Hold hold = holds.get(KEY, FIELD);
        int recorded = hold == null ? 0 : hold.count();
        if (recorded != redis.get()) {
            throw new IllegalStateException("Redis counts " + redis.get() + " holds, the client records " + recorded);
        }
        if (hold != null && holds.renewable(hold) != hold.watchdog()) {
            throw new IllegalStateException(
                    "renewable: " + holds.renewable(hold) + ", watchdog grant: " + hold.watchdog());
        }
    }

    @Test
    void everyOrderOfRepliesKeepsTheRecordWithRedis() {
        new ModelCheckingOptions()
                .iterations(8)
                .invocationsPerIteration(100)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(getClass());
    }
}
