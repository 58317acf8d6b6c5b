package dev.distlock.core.chaos;

import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a run's history and reports violations. The rules are conservative: a violation is only
 * reported when no documented behaviour (a lease that ran out, a fault that may lose Redis data, a
 * lease loss the library reported) can explain it.
 *
 * <p><b>Clocks.</b> Every event carries {@link System#currentTimeMillis()} of its JVM. All client
 * JVMs, the harness and the Redis servers run on one machine and read the same system clock, so
 * times are comparable up to the millisecond truncation; {@code clockErrorMillis} (default 25 ms)
 * is added against the checker wherever two times are compared. A hold's recorded interval, from
 * its {@code ACQ OK} to its {@code REL INV}, lies inside the time it really held the lock (the grant
 * happened before the reply was recorded; the release runs after its invocation was recorded).
 *
 * <p><b>Exclusion (OVERLAP, REGISTER).</b> Every hold is checked. A hold must exclude every other
 * owner (not both read holds) from its {@code ACQ OK} until the first of:
 * <ul>
 * <li>its {@code REL INV} (or the JVM's last event, when it never released);</li>
 * <li>the earliest moment its lease could have run out: every grant in the hold's nest set the key's
 *     expiry to no less than its invocation plus its lease (the watchdog timeout on the watchdog), and
 *     a read of the lease by the holder itself ({@link LeaseProbe}), sent at {@code t} and answered
 *     "held, {@code r} ms left", proves the lease lasts until {@code t + r} unless a later grant or
 *     release of the nest sets it again;</li>
 * <li>the moment its holder was told the lease was lost: a lease-loss report for its owner and lock,
 *     or a re-entry refused to its own owner;</li>
 * <li>the start of any fault that may lose data (restart, failover, a Sentinel master pause); a
 *     hold invoked before a restarted node was back, or before a failover settled, is not safe at
 *     all.</li>
 * </ul>
 * Nothing else excuses an overlap: a failed release, a failed re-entry or a lease-loss report that
 * comes after the overlap do not. Two such holds that overlap by more than the clock error are an
 * OVERLAP; an entry into the {@link ExclusionRegister} (the shared resource every holder writes its
 * entry and exit to) while a hold of another owner was inside, both within these bounds, is a
 * REGISTER violation.
 *
 * <p><b>Permits (OVER_PERMITS).</b> A semaphore's permits ({@link ChaosSemaphores}) are checked as
 * holds are: a permit's hold is safe by the same bounds (its lease counted from its invocation, the
 * watchdog timeout on the watchdog, since a renewal may fail or the holder may be paused, or as
 * long as its holder's read of the permit's expiry proves; a data-loss fault), and at no moment may
 * more safe holds than the semaphore has permits overlap by more than the clock error, in the
 * histories or in the register (an entry into the semaphore's section that found as many holders
 * inside as permits, with more of them safe than permits at that moment).
 *
 * <p><b>Early loss (EARLY_LOSS).</b> A release that answers "not held" (a permit's: "not taken" or
 * "outlived its lease"), or a read of the lease by the holder that finds its field gone, before the
 * hold's lease could have run out (as above), without a data-loss fault: the hold vanished while
 * its lease was valid.
 *
 * <p><b>Fencing (FENCING).</b> The {@link FencedLedger} logs {@code DUP} when two owners wrote with
 * the same token; a violation unless a data-loss fault lies between the two acquisitions (a lost
 * counter may reissue a token).
 *
 * <p><b>Cancels (CANCEL_HOLD).</b> A client JVM cancels asynchronous acquisitions at random points
 * and checks on the spot that no hold outlives the cancelled caller ({@link ChaosCancels}); a finding
 * with no fault around it is a violation.
 *
 * <p><b>Availability (UNAVAILABLE).</b> A call that fails with an error (not a timeout) although no
 * fault was in force or within its grace period from the call's invocation to its answer; "not
 * held" answers (IllegalMonitorStateException, a permit's IllegalArgumentException), timeouts
 * (load) and interrupts are not counted.
 *
 * <p><b>Reconnects (REJECTED, UNREACHABLE).</b> A call made while the client reconnects waits for
 * the connection within its deadline: no call may ever fail because the client was not connected
 * at that moment (Lettuce's "Currently not connected" refusal), and a call may fail as "unreachable"
 * only if a fault was in force, or healed less than {@link #RECONNECT_MILLIS} before it gave up (the
 * longest reconnect delay, 1 s, plus scheduling on a loaded machine): once Redis is reachable again,
 * a waiting call runs. That nothing runs after its caller gave up is checked by the other rules: a
 * hold taken by a call that failed or timed out counts as claimed until its lease ended (STRANDED),
 * and no lock key may be left at the end.
 *
 * <p><b>Liveness (STRANDED).</b> For every outer acquisition that waited at least the bound (it timed
 * out, or it acquired late): between its invocation and its answer, subtract every moment at which another operation on any of its locks may
 * have held or claimed the lock (from its invocation until its release returned; if the release or
 * the acquisition failed or was not answered, until its lease, or the watchdog timeout, plus two
 * command timeouts has passed after that) and every moment of a fault or its grace. If a stretch of
 * at least {@code livenessBoundMillis} remains, the lock was free, nothing was broken, and the waiter
 * still did not get it in that time: a violation. The bound is the longest lease or watchdog timeout
 * (a waiter that missed its wake-up sleeps at most the lease it last saw), plus the fair-lock wait
 * timeout (purging a dead queue head), two command timeouts and 3 s for scheduling on a loaded machine.
 *
 * <p><b>Wake-up latency (LATENCY).</b> When a hold is released (its {@code REL OK}) while other
 * owners wait for the lock, one of them must hold it within {@code handOffBoundMillis}: a release
 * wakes the waiters, and nothing but a fault excuses a waiter parked on a free lock until its park,
 * bounded by the lease it last saw, or its wait runs out. A release is checked when an acquisition
 * of a conflicting owner was invoked before the release's answer, its wait reached past the bound,
 * and it was answered ({@code OK} or {@code FAIL}) only after the bound. It is a violation unless,
 * between the release's answer and the bound, another owner that excludes the waiter (or the
 * waiter's own owner) held or may have held the lock (an acquisition answered {@code OK} counts
 * from a command timeout before its answer, as no reply is awaited longer, while {@code FAIL} was not
 * granted at all: a fair waiter behind a stalled queue head times out on a free lock; one
 * that failed with an error or was never answered from its invocation; each until it may have
 * claimed the lock by the liveness rule, but no longer than until the released hold was granted when
 * the two exclude each other and it had let go or given up by then), or a fault was in force or healed less than its grace
 * period, at most {@link #HAND_OFF_GRACE_MILLIS}, before the release. Waiters of a multi lock, which
 * need every member free, and of a semaphore's permits, are left to the liveness rule.
 */
final class ChaosChecker {

    /**
     * Timing parameters of the run.
     * @param watchdogMillis watchdog timeout of the clients
     * @param commandTimeoutMillis command timeout of the clients
     * @param fairWaitMillis fair-lock wait timeout of the clients
     * @param maxLeaseMillis longest explicit lease an operation may ask for
     * @param clockErrorMillis allowance for clock readings
     * @param handOffBoundMillis how soon after a release one of the lock's waiters must hold it
     */
    record Params(
            long watchdogMillis,
            long commandTimeoutMillis,
            long fairWaitMillis,
            long maxLeaseMillis,
            long clockErrorMillis,
            long handOffBoundMillis) {

        long livenessBoundMillis() {
            return Math.max(maxLeaseMillis, watchdogMillis) + fairWaitMillis + 2 * commandTimeoutMillis + 3000;
        }
    }

    /** @param kind violation class  @param message what happened, with the evidence */
    record Violation(String kind, String message) {
        @Override
        public String toString() {
            return kind + ": " + message;
        }
    }

    /** @param violations what was found  @param stats counters, for the report */
    record Result(List<Violation> violations, Map<String, Long> stats) {}

    /** The events of one acquisition and its release. */
    static final class Op {
        Event inv;
        Event res;
        Event relInv;
        Event relRes;
        final List<Op> nested = new ArrayList<>();
        final List<Event> probes = new ArrayList<>();

        String id() {
            return inv.jvm() + "#" + inv.op();
        }

        @Override
        public String toString() {
            return inv.kind() + "" + inv.locks() + " " + inv.owner() + " op " + id() + " inv@" + inv.time()
                    + (res == null
                            ? " unanswered"
                            : " " + res.phase() + "@" + res.time() + (res.token() > 0 ? " token " + res.token() : ""))
                    + " lease " + inv.leaseMillis() + " wait " + inv.waitMillis()
                    + (relInv == null ? " never released" : " rel@" + relInv.time())
                    + (relRes == null
                            ? ""
                            : " " + relRes.phase() + "@" + relRes.time()
                                    + ("-".equals(relRes.detail()) ? "" : " " + relRes.detail()));
        }
    }

    /** @param cut what ended the interval */
    private record Interval(Op op, long start, long end, String cut) {}

    /**
     * How long after a fault healed a release must wake its waiters again: a reconnect (at most 1 s
     * apart), a topology refresh and a re-subscription, with room for a loaded machine.
     */
    static final long HAND_OFF_GRACE_MILLIS = 8000;

    /** How long after a fault healed a client must be connected again: longest reconnect delay plus slack. */
    static final long RECONNECT_MILLIS = 3000;

    private final Params params;
    private final List<Fault> faults;
    private final List<Violation> violations = new ArrayList<>();
    private final Map<String, Long> stats = new TreeMap<>();
    private final Map<String, Long> lastTime = new HashMap<>();
    private final Map<String, List<Event>> lost = new HashMap<>();
    private final Map<String, Op> byId = new LinkedHashMap<>();
    private final List<Event> cancels = new ArrayList<>();
    private final List<Op> ops = new ArrayList<>();

    private ChaosChecker(Params params, List<Fault> faults) {
        this.params = params;
        this.faults = faults;
    }

    static Result check(List<Event> events, List<Fault> faults, List<LedgerEntry> ledger, Params params) {
        return check(events, faults, ledger, List.of(), params);
    }

    static Result check(
            List<Event> events,
            List<Fault> faults,
            List<LedgerEntry> ledger,
            List<ExclusionRegister.Entry> register,
            Params params) {
        ChaosChecker checker = new ChaosChecker(params, faults);
        checker.index(events);
        checker.checkOverlaps();
        checker.checkRegister(register);
        checker.checkLedger(ledger);
        checker.checkLiveness();
        checker.checkHandOffs();
        checker.checkAvailability(events);
        checker.checkReconnects(events);
        checker.checkCancels();
        return new Result(List.copyOf(checker.violations), checker.stats);
    }

    private void index(List<Event> events) {
        for (Event e : events) {
            lastTime.merge(e.jvm(), e.time(), Math::max);
            if (e.type() == Type.LOST) {
                lost.computeIfAbsent(e.owner(), k -> new ArrayList<>()).add(e);
                count("lease-loss reports");
                continue;
            }
            if (e.type() == Type.PROBE) {
                byId.computeIfAbsent(e.jvm() + "#" + e.op(), k -> new Op())
                        .probes
                        .add(e);
                count("lease reads " + e.detail().replaceAll("[ @].*", ""));
                continue;
            }
            if (e.type() == Type.CANCEL) {
                cancels.add(e);
                continue;
            }
            Op op = byId.computeIfAbsent(e.jvm() + "#" + e.op(), k -> new Op());
            if (e.type() == Type.ACQ) {
                if (e.phase() == Phase.INV) {
                    op.inv = e;
                    count("ops " + e.kind() + (e.parent() >= 0 ? " (nested)" : ""));
                } else {
                    op.res = e;
                    count("acquire " + e.phase());
                }
            } else if (e.phase() == Phase.INV) {
                op.relInv = e;
            } else {
                op.relRes = e;
                count("release " + e.phase());
            }
        }
        for (Op op : byId.values()) {
            if (op.inv == null) {
                continue;
            }
            if (op.inv.parent() >= 0) {
                Op outer = byId.get(op.inv.jvm() + "#" + op.inv.parent());
                if (outer != null) {
                    outer.nested.add(op);
                }
            } else {
                ops.add(op);
            }
        }
    }

    // ---- exclusion --------------------------------------------------------------------------

    private void checkOverlaps() {
        Map<String, List<Interval>> byLock = new TreeMap<>();
        Map<String, List<Interval>> bySemaphore = new TreeMap<>();
        for (Op op : ops) {
            if (op.res == null || op.res.phase() != Phase.OK) {
                continue;
            }
            checkEarlyLoss(op);
            if (op.inv.kind() == Kind.SEMAPHORE) {
                count("permits checked against the permits");
                String semaphore = op.inv.locks().get(0);
                Interval safe = safeInterval(op, semaphore);
                count("permit hold ends: " + safe.cut());
                bySemaphore.computeIfAbsent(semaphore, k -> new ArrayList<>()).add(safe);
                continue;
            }
            count("holds checked for exclusion");
            for (String lock : op.inv.locks()) {
                Interval safe = safeInterval(op, lock);
                count("hold ends (per lock): " + safe.cut());
                byLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(safe);
            }
        }
        for (Map.Entry<String, List<Interval>> entry : byLock.entrySet()) {
            List<Interval> holds = entry.getValue();
            holds.removeIf(hold -> hold.end() <= hold.start());
            holds.sort(Comparator.comparingLong(Interval::start));
            List<Interval> active = new ArrayList<>();
            for (Interval hold : holds) {
                active.removeIf(other -> other.end() <= hold.start() + params.clockErrorMillis());
                for (Interval other : active) {
                    if (conflict(other.op(), hold.op())) {
                        long overlap = Math.min(other.end(), hold.end()) - hold.start();
                        violations.add(new Violation(
                                "OVERLAP",
                                "lock '" + entry.getKey() + "' held by two owners for "
                                        + overlap + " ms: [" + other.op() + "] safe " + other.start() + ".."
                                        + other.end() + " (" + other.cut() + ")"
                                        + " and [" + hold.op() + "] safe " + hold.start() + ".." + hold.end()
                                        + " (" + hold.cut() + ")"));
                    }
                }
                active.add(hold);
            }
        }
        bySemaphore.forEach(this::checkPermits);
    }

    /** OVER_PERMITS: more safe holds of a semaphore's permits overlapped than it has permits. */
    private void checkPermits(String semaphore, List<Interval> holds) {
        int permits = ChaosSemaphores.permits(semaphore);
        holds.removeIf(hold -> hold.end() <= hold.start());
        holds.sort(Comparator.comparingLong(Interval::start));
        List<Interval> active = new ArrayList<>();
        for (Interval hold : holds) {
            active.removeIf(other -> other.end() <= hold.start() + params.clockErrorMillis());
            active.add(hold);
            if (active.size() > permits) {
                violations.add(new Violation(
                        "OVER_PERMITS",
                        "semaphore '" + semaphore + "' (" + permits + " permits) held by " + active.size()
                                + " at " + hold.start() + ": "
                                + active.stream()
                                        .map(h -> "[" + h.op() + "] safe " + h.start() + ".." + h.end() + " (" + h.cut()
                                                + ")")
                                        .toList()));
            }
        }
    }

    private static boolean conflict(Op a, Op b) {
        boolean shared = a.inv.kind() == Kind.READ && b.inv.kind() == Kind.READ;
        return !shared && !a.inv.owner().equals(b.inv.owner());
    }

    /**
     * REGISTER: the {@link ExclusionRegister} saw a hold enter while a hold of another owner was inside,
     * and at that moment neither hold's lease could have run out, neither holder had been told of a
     * lost lease, and no fault that loses data was around.
     */
    private void checkRegister(List<ExclusionRegister.Entry> register) {
        for (ExclusionRegister.Entry entry : register) {
            count("register " + ("E".equals(entry.phase()) ? "entries" : "exits"));
            if (entry.others().isEmpty()) {
                continue;
            }
            Op entrant = byId.get(entry.op());
            if (entrant != null && entrant.inv != null && entrant.inv.kind() == Kind.SEMAPHORE) {
                checkRegisterPermits(entry, entrant);
                continue;
            }
            for (String otherId : entry.others()) {
                count("register overlaps flagged");
                Op other = byId.get(otherId);
                if (entrant == null || other == null || entrant.res == null || other.res == null) {
                    count("register overlaps with a hold missing from the histories");
                    continue;
                }
                Interval inside = safeInterval(other, entry.lock());
                Interval entering = safeInterval(entrant, entry.lock());
                if (entry.time() >= inside.end() || entry.time() >= entering.end()) {
                    count("register overlaps explained: "
                            + (entry.time() >= inside.end() ? inside.cut() : entering.cut()));
                    continue;
                }
                violations.add(new Violation(
                        "REGISTER",
                        "lock '" + entry.lock() + "': [" + entrant + "] entered the critical section at "
                                + entry.time() + (entry.token() > 0 ? " with token " + entry.token() : "")
                                + " while [" + other + "] was inside, safe until " + inside.end() + " ("
                                + inside.cut() + "); faults around: "
                                + faultsAround(other.inv.time(), entry.time())));
            }
        }
    }

    /**
     * OVER_PERMITS from the register: a permit's hold entered its semaphore's section while as many
     * holds as permits were inside, and at that moment more of them than permits were safe (their
     * lease could not have run out, and no fault that loses data was around).
     */
    private void checkRegisterPermits(ExclusionRegister.Entry entry, Op entrant) {
        count("register over-permits flagged");
        List<Op> inside = new ArrayList<>();
        inside.add(entrant);
        for (String otherId : entry.others()) {
            inside.add(byId.get(otherId));
        }
        List<String> safe = new ArrayList<>();
        for (Op op : inside) {
            if (op == null || op.res == null) {
                count("register over-permits with a hold missing from the histories");
                return;
            }
            Interval interval = safeInterval(op, entry.lock());
            if (entry.time() < interval.end()) {
                safe.add("[" + op + "] safe until " + interval.end() + " (" + interval.cut() + ")");
            }
        }
        int permits = ChaosSemaphores.permits(entry.lock());
        if (safe.size() <= permits) {
            count("register over-permits explained (a lease could have run out, or data was lost)");
            return;
        }
        violations.add(new Violation(
                "OVER_PERMITS",
                "semaphore '" + entry.lock() + "' (" + permits + " permits): [" + entrant
                        + "] entered the section at " + entry.time() + " with " + (inside.size() - 1)
                        + " holders inside; " + safe.size() + " of these " + inside.size() + " holds safe: " + safe
                        + "; faults around: "
                        + faultsAround(entrant.inv.time() - 30_000, entry.time())));
    }

    /**
     * EARLY_LOSS: the hold was found gone (a release answered "not held", or the holder's own read of
     * the lock found its field missing) before its lease could have run out, with no data-loss fault
     * around: every run of the release or read happened before its answer was recorded, so at that
     * moment the lease was still valid, and nothing but the library itself can have removed the hold.
     */
    private void checkEarlyLoss(Op op) {
        if ("broken".equals(op.res.detail())) {
            return;
        }
        List<Op> nest = new ArrayList<>(op.nested);
        nest.add(op);
        for (Op member : nest) {
            Event answer = member.relRes;
            if (answer != null && answer.phase() == Phase.ERR && notHeld(answer)) {
                long validUntil = Long.MAX_VALUE;
                for (String lock : op.inv.locks()) {
                    validUntil = Math.min(validUntil, leaseBound(op, lock, answer.time()));
                }
                earlyLoss(op, member, answer.time(), validUntil, "release answered 'not held'");
            }
        }
        for (Event probe : op.probes) {
            if (probe.detail().startsWith("gone@")) {
                long seen = Long.parseLong(probe.detail().substring(5));
                long validUntil = leaseBound(op, probe.locks().get(0), probe.time());
                earlyLoss(
                        op,
                        op,
                        seen,
                        validUntil,
                        "the holder's read found its hold of '" + probe.locks().get(0) + "' gone (read sent at "
                                + probe.time() + ")");
            }
        }
    }

    /** @return whether a failed release answered "not held": a lock's, or a permit's "not taken" */
    private static boolean notHeld(Event answer) {
        return answer.detail().contains("IllegalMonitorStateException")
                || answer.kind() == Kind.SEMAPHORE && answer.detail().contains("IllegalArgumentException");
    }

    private void earlyLoss(Op op, Op member, long at, long validUntil, String what) {
        if (at >= validUntil - params.clockErrorMillis) {
            return;
        }
        boolean dataLoss = faults.stream()
                .anyMatch(
                        f -> f.dataLoss() && f.start() - params.clockErrorMillis <= at && lossEnd(f) >= op.inv.time());
        if (dataLoss) {
            count("early losses explained by a data-loss fault");
            return;
        }
        violations.add(new Violation(
                "EARLY_LOSS",
                what + " at " + at + ", " + (validUntil - at) + " ms before the lease could have run out ("
                        + validUntil + "), with no data-loss fault: [" + member + "]"
                        + (member == op ? "" : " nested in [" + op + "]")
                        + "; faults around: " + faultsAround(op.inv.time(), at)));
    }

    private List<String> faultsAround(long from, long to) {
        return faults.stream()
                .filter(f -> f.start() <= to && f.settled() >= from)
                .map(f -> f.type() + "@" + f.start() + ".." + f.end())
                .toList();
    }

    /**
     * The part of a hold of {@code lock} during which it must exclude every other owner: from its
     * acquisition's answer until the first of its release's invocation (or the JVM's last event), the
     * earliest moment its lease could have run out ({@link #leaseBound}), the moment its holder was
     * told the lease was lost (a lease-loss report, or a re-entry refused to its own owner), and the
     * start of a fault that may lose Redis data. Nothing else excuses an overlap.
     */
    private Interval safeInterval(Op op, String lock) {
        long start = op.res.time();
        long end = op.relInv != null ? op.relInv.time() : lastTime.get(op.inv.jvm());
        String cut = op.relInv != null ? "released" : "never released";
        long lease = leaseBound(op, lock, Long.MAX_VALUE) - params.clockErrorMillis;
        if (lease < end) {
            end = lease;
            cut = "lease could have run out";
        }
        for (Op member : op.nested) {
            if (member.res != null && member.res.phase() == Phase.FAIL && member.res.time() < end) {
                end = member.res.time();
                cut = "told: re-entry refused";
            }
        }
        for (Event report : lost.getOrDefault(op.inv.owner(), List.of())) {
            if (report.time() >= op.inv.time()
                    && report.time() < end
                    && (report.locks().get(0).equals(lock)
                            || !knownName(report.locks().get(0)))) {
                end = report.time();
                cut = "told: lease lost";
            }
        }
        for (Fault fault : faults) {
            if (fault.dataLoss() && fault.start() - params.clockErrorMillis <= end && lossEnd(fault) >= op.inv.time()) {
                end = Math.min(end, fault.start() - params.clockErrorMillis);
                cut = "data-loss fault";
            }
        }
        return new Interval(op, start, end, end <= start ? cut + " before the reply" : cut);
    }

    /**
     * The earliest moment the hold's lease on {@code lock} could have run out, from what was seen
     * before {@code asOf}. Every grant or release in the nest set the key's expiry to at least its
     * invocation plus its lease (a release: plus the nest's smallest lease; the watchdog's renewals only
     * push it later, at most to a watchdog timeout from when they run). A read of the lease by the holder
     * ({@link LeaseProbe}) sent at {@code t} that found {@code r} ms left proves an expiry of at least
     * {@code t + r}, until a later grant or release of the nest sets it again. The bound is the best of
     * these anchors (no read, or any read) of the least that the anchor and every later setting allow.
     */
    private long leaseBound(Op op, String lock, long asOf) {
        List<Op> nest = new ArrayList<>(op.nested);
        nest.add(op);
        boolean watchdog =
                nest.stream().anyMatch(m -> m.inv.leaseMillis() < 0 && (m.res == null || m.res.phase() != Phase.FAIL));
        long best = settingsFrom(nest, Long.MIN_VALUE);
        for (Event probe : op.probes) {
            if (probe.time() >= asOf
                    || !probe.locks().get(0).equals(lock)
                    || !probe.detail().startsWith("held ")) {
                continue;
            }
            long left = Long.parseLong(probe.detail().substring(5));
            if (left < 0) {
                left = Long.MAX_VALUE / 4; // no expiry: the hold cannot lapse
            }
            if (watchdog) {
                left = Math.min(left, params.watchdogMillis); // a renewal after the read sets a watchdog timeout
            }
            best = Math.max(best, Math.min(probe.time() + left, settingsFrom(nest, probe.time())));
        }
        return best;
    }

    /**
     * @return the least expiry that a grant or release of the nest possibly made after {@code after}
     *     set: a grant sets its own lease from no earlier than its invocation; a release of a re-entry
     *     keeps the longest lease left of the grants that remain, which is no less than the least of
     *     the grants' own bounds
     */
    private long settingsFrom(List<Op> nest, long after) {
        long allGrants = Long.MAX_VALUE;
        long least = Long.MAX_VALUE;
        boolean releaseAfter = false;
        Op outer = nest.get(nest.size() - 1);
        for (Op member : nest) {
            if (member.res == null || member.res.phase() != Phase.FAIL) {
                long lease = member.inv.leaseMillis();
                long bound = member.inv.time() + (lease < 0 ? params.watchdogMillis : lease);
                allGrants = Math.min(allGrants, bound);
                // A hold reads its lease only after its own grant was answered; a re-entry answered in the
                // same ms as a read may have come after it.
                if (member.res == null || member.res.time() > after || member != outer && member.res.time() == after) {
                    least = Math.min(least, bound);
                }
            }
            releaseAfter |= member != outer
                    && member.relInv != null
                    && (member.relRes == null || member.relRes.time() >= after);
        }
        return releaseAfter ? Math.min(least, allGrants) : least;
    }

    /**
     * @return until when a data-loss fault may take holds with it: a restarted or stopped node loses
     *     what it had when it went down, and a hold invoked after it was back is taken on its new
     *     state; a failover or a migration may go on settling (an old master still answering) for its
     *     grace period
     */
    private long lossEnd(Fault fault) {
        boolean restart =
                fault.type().equals(FaultType.RESTART.name()) || fault.type().equals(FaultType.OUTAGE.name());
        return restart ? fault.end() + params.clockErrorMillis : fault.settled();
    }

    private static boolean knownName(String name) {
        return ChaosOperations.allNames().contains(name);
    }

    // ---- fencing ----------------------------------------------------------------------------

    private void checkLedger(List<LedgerEntry> ledger) {
        // One owner may draw the same token twice when the counter was reset in between: keep them all.
        Map<String, List<Op>> byOwnerToken = new HashMap<>();
        for (Op op : ops) {
            if (op.res != null && op.res.token() > 0) {
                byOwnerToken
                        .computeIfAbsent(
                                op.inv.owner() + "/" + op.res.token() + "/"
                                        + op.inv.locks().get(0),
                                k -> new ArrayList<>())
                        .add(op);
            }
        }
        Map<String, LedgerEntry> firstWriter = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            count("ledger " + entry.verdict());
            String tokenKey = entry.lock() + "/" + entry.token();
            if (!FencedLedger.DUP.equals(entry.verdict())) {
                firstWriter.putIfAbsent(tokenKey, entry);
                continue;
            }
            LedgerEntry first = firstWriter.get(tokenKey);
            Op earlier = first == null
                    ? null
                    : latestBefore(
                            byOwnerToken.get(first.owner() + "/" + first.token() + "/" + first.lock()), first.time());
            Op later = latestBefore(
                    byOwnerToken.get(entry.owner() + "/" + entry.token() + "/" + entry.lock()), entry.time());
            // The first owner drew the token no earlier than its acquisition's invocation, the second no
            // later than its write; a counter reset in between explains the duplicate.
            long from = earlier != null ? earlier.inv.time() : Long.MIN_VALUE;
            long to = entry.time();
            boolean excused = faults.stream()
                    .anyMatch(f -> f.dataLoss() && f.start() - params.clockErrorMillis <= to && f.settled() >= from);
            if (excused) {
                count("ledger DUP excused by a data-loss fault");
                continue;
            }
            violations.add(new Violation(
                    "FENCING",
                    "lock '" + entry.lock() + "': token " + entry.token()
                            + " accepted from two owners: " + (first == null ? "?" : first.owner() + "@" + first.time())
                            + " ["
                            + earlier + "] and " + entry.owner() + "@" + entry.time() + " [" + later + "]"));
        }
    }

    /** @return the acquisition among {@code candidates} invoked last before {@code time}, or null */
    private static Op latestBefore(List<Op> candidates, long time) {
        Op best = null;
        for (Op op : candidates == null ? List.<Op>of() : candidates) {
            if (op.inv.time() <= time && (best == null || op.inv.time() > best.inv.time())) {
                best = op;
            }
        }
        return best;
    }

    // ---- liveness ---------------------------------------------------------------------------

    private void checkLiveness() {
        long bound = params.livenessBoundMillis();
        for (Op waiter : ops) {
            boolean answered =
                    waiter.res != null && (waiter.res.phase() == Phase.FAIL || waiter.res.phase() == Phase.OK);
            if (!answered || waiter.res.time() - waiter.inv.time() < bound) {
                continue;
            }
            count("waits of at least the liveness bound checked");
            List<long[]> busy = new ArrayList<>();
            for (Op other : ops) {
                if (other != waiter && other.inv.locks().stream().anyMatch(waiter.inv.locks()::contains)) {
                    busy.add(new long[] {other.inv.time(), claimedUntil(other)});
                }
            }
            for (Fault fault : faults) {
                busy.add(new long[] {fault.start() - params.clockErrorMillis, fault.settled()});
            }
            busy.sort(Comparator.comparingLong(b -> b[0]));
            long cursor = waiter.inv.time();
            long stop = waiter.res.time();
            long longest = 0;
            long longestFrom = cursor;
            for (long[] b : busy) {
                if (b[0] > cursor && Math.min(b[0], stop) - cursor > longest) {
                    longest = Math.min(b[0], stop) - cursor;
                    longestFrom = cursor;
                }
                cursor = Math.max(cursor, b[1]);
                if (cursor >= stop) {
                    break;
                }
            }
            if (stop - cursor > longest) {
                longest = stop - cursor;
                longestFrom = cursor;
            }
            if (longest >= bound) {
                violations.add(new Violation(
                        "STRANDED",
                        "waiter [" + waiter + "] was not served although its locks "
                                + waiter.inv.locks() + " were free and no fault was active for " + longest + " ms from "
                                + longestFrom + " (bound " + bound + " ms)"));
            } else if (longest > 0) {
                count("waits with a free stretch below the bound");
            }
        }
    }

    // ---- wake-up latency --------------------------------------------------------------------

    private void checkHandOffs() {
        Map<String, List<Op>> byLock = new TreeMap<>();
        Map<String, List<Op>> waitersByLock = new TreeMap<>();
        for (Op op : ops) {
            if (op.inv.kind() == Kind.SEMAPHORE) {
                continue; // several holders at once: left to the liveness rule
            }
            for (String lock : op.inv.locks()) {
                byLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(op);
                // Single tries (no wait) are never parked; multi-lock waiters need every member free.
                if (op.inv.waitMillis() != 0 && op.inv.kind() != Kind.MULTI) {
                    waitersByLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(op);
                }
            }
        }
        byLock.forEach((lock, onLock) -> {
            List<Op> waiters = waitersByLock.getOrDefault(lock, List.of());
            for (Op released : onLock) {
                checkHandOff(lock, onLock, waiters, released);
            }
        });
    }

    /** LATENCY: the release of {@code released} left waiters parked on the free lock past the bound. */
    private void checkHandOff(String lock, List<Op> onLock, List<Op> waiters, Op released) {
        if (released.res == null
                || released.res.phase() != Phase.OK
                || released.relRes == null
                || released.relRes.phase() != Phase.OK) {
            return;
        }
        long freed = released.relRes.time();
        long due = freed + params.handOffBoundMillis();
        List<Op> waiting = new ArrayList<>();
        for (Op waiter : waiters) {
            if (waiter != released
                    && conflict(released, waiter)
                    && waiter.inv.time() < freed
                    && (waiter.res == null || waiter.res.time() > freed)) {
                waiting.add(waiter);
            }
        }
        if (waiting.isEmpty()) {
            return;
        }
        count("releases with waiters");
        List<Op> parked = new ArrayList<>();
        for (Op waiter : waiting) {
            if ((waiter.inv.waitMillis() < 0 || waiter.inv.time() + waiter.inv.waitMillis() > due)
                    && waiter.res != null
                    && (waiter.res.phase() == Phase.OK || waiter.res.phase() == Phase.FAIL)
                    && waiter.res.time() > due + params.clockErrorMillis) {
                parked.add(waiter);
            }
        }
        if (parked.isEmpty()) {
            return;
        }
        count("releases with parked waiters checked for a hand-off");
        long from = released.relInv.time();
        boolean faulty = faults.stream()
                .anyMatch(f -> f.start() - params.clockErrorMillis <= due
                        && f.end() + Math.min(f.graceMillis(), HAND_OFF_GRACE_MILLIS) >= from);
        if (faulty) {
            count("hand-offs excused by a fault");
            return;
        }
        parked.removeIf(waiter -> onLock.stream()
                .anyMatch(other -> other != released
                        && other != waiter
                        && (conflict(other, waiter) || other.inv.owner().equals(waiter.inv.owner()))
                        && !goneBefore(other, released)
                        && mayHold(other, freed, due)));
        if (parked.isEmpty()) {
            count("hand-offs made (the lock was held again within the bound)");
            return;
        }
        violations.add(new Violation(
                "LATENCY",
                "lock '" + lock + "' released by [" + released + "] stayed free for "
                        + params.handOffBoundMillis() + " ms with no fault around while " + parked.size()
                        + " waiter(s) stayed parked: "
                        + parked.stream().map(w -> "[" + w + "]").toList()));
    }

    /**
     * @return whether whatever {@code other} may have left on the lock (a hold whose release failed, a
     *     grant whose reply was lost) was gone before {@code released} was granted: the two exclude
     *     each other, and {@code other} had let go or given up before that grant was answered
     */
    private static boolean goneBefore(Op other, Op released) {
        if (!conflict(other, released) || other.res == null) {
            return false;
        }
        long letGo = other.res.phase() == Phase.OK
                ? (other.relInv == null ? Long.MAX_VALUE : other.relInv.time())
                : other.res.time();
        return letGo <= released.res.time();
    }

    /** @return whether {@code op} held, or may have held, its locks at some moment in {@code from..to} */
    private boolean mayHold(Op op, long from, long to) {
        if (op.res == null) {
            return op.inv.time() <= to;
        }
        if (op.res.phase() == Phase.FAIL) {
            // Not granted: a fair waiter behind a stalled queue head times out on a free lock.
            return false;
        }
        long start = op.res.phase() == Phase.ERR
                ? op.inv.time()
                : Math.max(op.inv.time(), op.res.time() - params.commandTimeoutMillis - params.clockErrorMillis);
        return start <= to + params.clockErrorMillis && claimedUntil(op) >= from;
    }

    /**
     * UNAVAILABLE: a call failed with an error although no fault was in force or settling from its
     * invocation to its answer. Timeouts are left out (a loaded machine may be slow without a fault),
     * as are interrupts. One violation per distinct error, with how often and when it occurred.
     */
    private void checkAvailability(List<Event> events) {
        Map<String, Event> invocations = new HashMap<>();
        Map<String, long[]> byError = new TreeMap<>();
        Map<String, String> example = new HashMap<>();
        for (Event e : events) {
            String key = e.jvm() + "#" + e.op() + "#" + e.type();
            if (e.phase() == Phase.INV) {
                invocations.put(key, e);
                continue;
            }
            Event inv = invocations.get(key);
            if (e.type() == Type.CANCEL) {
                continue;
            }
            // "Not held" is an answer, not an outage (EARLY_LOSS judges it); timeouts may be load.
            if (e.phase() != Phase.ERR
                    || inv == null
                    || e.detail().contains("timed out")
                    || e.detail().contains("Interrupt")
                    || notHeld(e)) {
                continue;
            }
            boolean faulty = faults.stream()
                    .anyMatch(f -> f.start() - params.clockErrorMillis <= e.time() && f.settled() >= inv.time());
            if (!faulty) {
                String error = e.type() + " "
                        + e.detail()
                                .replaceAll("'[^']*'", "'*'")
                                .replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "*")
                                .replaceAll("\\d+", "N");
                long[] seen = byError.computeIfAbsent(error, k -> new long[] {0, Long.MAX_VALUE, 0});
                seen[0]++;
                seen[1] = Math.min(seen[1], e.time());
                seen[2] = Math.max(seen[2], e.time());
                example.putIfAbsent(
                        error, inv.jvm() + "#" + inv.op() + " " + inv.kind() + inv.locks() + " " + e.detail());
            }
        }
        byError.forEach((error, seen) -> violations.add(new Violation(
                "UNAVAILABLE",
                seen[0] + " call(s) failed between "
                        + seen[1] + " and " + seen[2] + " with no fault in force or settling: " + error + "; e.g. "
                        + example.get(error) + "; faults around: " + faultsAround(seen[1] - 30_000, seen[2]))));
    }

    /**
     * REJECTED: a call saw the client's own "not connected" refusal instead of waiting for the
     * reconnect. UNREACHABLE: a call gave up waiting for the connection although Redis had been
     * reachable, with no fault in force, for longer than a reconnect takes.
     */
    private void checkReconnects(List<Event> events) {
        for (Event e : events) {
            if (e.phase() != Phase.ERR) {
                continue;
            }
            if (e.detail().contains("Commands are rejected") || e.detail().contains("Currently not connected")) {
                count("calls refused while reconnecting");
                violations.add(new Violation(
                        "REJECTED",
                        e.jvm() + "#" + e.op() + " " + e.type() + " " + e.kind() + e.locks() + " failed at " + e.time()
                                + " instead of waiting for the reconnect: " + e.detail()));
            } else if (e.detail().contains("unreachable for")) {
                count("calls that gave up on an unreachable Redis");
                boolean explained = faults.stream()
                        .anyMatch(f -> f.start() - params.clockErrorMillis <= e.time()
                                && f.end() + RECONNECT_MILLIS + params.clockErrorMillis >= e.time());
                if (!explained) {
                    violations.add(new Violation(
                            "UNREACHABLE",
                            e.jvm() + "#" + e.op() + " " + e.type() + " " + e.kind() + e.locks() + " gave up at "
                                    + e.time() + " although no fault was in force in the " + RECONNECT_MILLIS
                                    + " ms before: " + e.detail() + "; faults around: "
                                    + faultsAround(e.time() - 30_000, e.time())));
                }
            }
        }
    }

    /**
     * CANCEL_HOLD: a hold outlived the caller that cancelled its acquisition (the cancelled owner still
     * held the lock after the give-back's grace period, or a cancelled re-entry stretched the outer
     * hold's lease), with no fault between the cancel and the finding to delay the give-back.
     */
    private void checkCancels() {
        Map<String, Event> issued = new HashMap<>();
        for (Event e : cancels) {
            String key = e.jvm() + "#" + e.op();
            if (e.phase() == Phase.INV) {
                issued.put(key, e);
                count("cancels");
                continue;
            }
            Event inv = issued.get(key);
            count("cancels " + e.phase() + (inv == null ? "" : " (" + inv.detail() + ")"));
            if (e.phase() != Phase.ERR || inv == null) {
                continue;
            }
            boolean faulty = faults.stream()
                    .anyMatch(f -> f.start() - params.clockErrorMillis <= e.time() && f.settled() >= inv.time());
            if (faulty) {
                count("cancels ERR excused by a fault");
                continue;
            }
            violations.add(new Violation(
                    "CANCEL_HOLD",
                    inv.kind() + "" + inv.locks() + " " + inv.owner() + " op " + key + " cancelled@" + inv.time()
                            + " (" + inv.detail() + ", lease " + inv.leaseMillis() + ", wait " + inv.waitMillis()
                            + "): " + e.detail()));
        }
    }

    /** @return until when an operation may have held or claimed its locks */
    private long claimedUntil(Op op) {
        long lease = op.inv.leaseMillis() < 0 ? params.watchdogMillis : op.inv.leaseMillis();
        long slack = lease + 2 * params.commandTimeoutMillis + params.clockErrorMillis;
        for (Op inner : op.nested) {
            long innerLease = inner.inv.leaseMillis() < 0 ? params.watchdogMillis : inner.inv.leaseMillis();
            slack = Math.max(slack, innerLease + 2 * params.commandTimeoutMillis + params.clockErrorMillis);
        }
        if (op.res == null) {
            return Long.MAX_VALUE;
        }
        if (op.res.phase() != Phase.OK) {
            if (op.inv.kind() == Kind.FAIR
                    && ChaosOperations.LINES.contains(op.inv.locks().get(0))) {
                // A queue entry its owner failed to take back blocks the queue until the lines' client's
                // fair-lock wait timeout passes.
                slack += ChaosOperations.LINE_FAIR_WAIT_MILLIS;
            }
            return op.res.time() + slack;
        }
        if (op.relRes != null && op.relRes.phase() == Phase.OK) {
            return op.relRes.time() + params.clockErrorMillis;
        }
        if (op.relRes != null) {
            return op.relRes.time() + slack;
        }
        return Long.MAX_VALUE;
    }

    private void count(String what) {
        stats.merge(what, 1L, Long::sum);
    }
}
