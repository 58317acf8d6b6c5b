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
 * <p><b>Exclusion (OVERLAP).</b> A hold counts as safe from {@code ACQ OK} until the first of:
 * <ul>
 * <li>its {@code REL INV} (or the JVM's last event, when it never released);</li>
 * <li>with any explicit lease in the hold (including nested re-entries): the outer {@code ACQ INV}
 *     plus the smallest lease of the nest, watchdog acquisitions counted as the watchdog timeout.
 *     Redis sets the expiry after the invocation, so the lease cannot have run out before;</li>
 * <li>the start of any fault that may lose data (restart, failover, a Sentinel master pause); a
 *     hold acquired before such a fault settled is not safe at all.</li>
 * </ul>
 * and is not safe at all when its lease may have lapsed without the checker seeing it: a lease-loss
 * report for its owner and lock between its invocation and shortly after its release; for holds on
 * the watchdog only, a release or re-entry that failed, or a release never answered. Two safe holds
 * of different owners on one lock, not both read holds, that overlap by more than the clock error,
 * are a violation.
 *
 * <p><b>Early loss (EARLY_LOSS).</b> A release that answers "not held" before the hold's explicit
 * lease (the smallest in its nest, counted from the outer invocation) could have run out, without a
 * data-loss fault: the hold vanished while its lease was valid.
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
 * fault was in force or within its grace period from the call's invocation to its answer; "not held"
 * answers (IllegalMonitorStateException), timeouts (load) and interrupts are not counted.
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
 */
final class ChaosChecker {

    /**
     * Timing parameters of the run.
     * @param watchdogMillis watchdog timeout of the clients
     * @param commandTimeoutMillis command timeout of the clients
     * @param fairWaitMillis fair-lock wait timeout of the clients
     * @param maxLeaseMillis longest explicit lease an operation may ask for
     * @param clockErrorMillis allowance for clock readings
     */
    record Params(
            long watchdogMillis,
            long commandTimeoutMillis,
            long fairWaitMillis,
            long maxLeaseMillis,
            long clockErrorMillis) {

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

    private record Interval(Op op, long start, long end) {}

    /** How long after a fault healed a client must be connected again: longest reconnect delay plus slack. */
    static final long RECONNECT_MILLIS = 3000;

    private final Params params;
    private final List<Fault> faults;
    private final List<Violation> violations = new ArrayList<>();
    private final Map<String, Long> stats = new TreeMap<>();
    private final Map<String, Long> lastTime = new HashMap<>();
    private final List<Event> lost = new ArrayList<>();
    private final List<Event> cancels = new ArrayList<>();
    private final List<Op> ops = new ArrayList<>();

    private ChaosChecker(Params params, List<Fault> faults) {
        this.params = params;
        this.faults = faults;
    }

    static Result check(List<Event> events, List<Fault> faults, List<LedgerEntry> ledger, Params params) {
        ChaosChecker checker = new ChaosChecker(params, faults);
        checker.index(events);
        checker.checkOverlaps();
        checker.checkLedger(ledger);
        checker.checkLiveness();
        checker.checkAvailability(events);
        checker.checkReconnects(events);
        checker.checkCancels();
        return new Result(List.copyOf(checker.violations), checker.stats);
    }

    private void index(List<Event> events) {
        Map<String, Op> byId = new LinkedHashMap<>();
        for (Event e : events) {
            lastTime.merge(e.jvm(), e.time(), Math::max);
            if (e.type() == Type.LOST) {
                lost.add(e);
                count("lease-loss reports");
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
        for (Op op : ops) {
            if (op.res == null || op.res.phase() != Phase.OK) {
                continue;
            }
            checkEarlyLoss(op);
            Interval safe = safeInterval(op);
            if (safe == null) {
                count("holds not checked (lease may have lapsed)");
                continue;
            }
            count("holds checked for exclusion");
            for (String lock : op.inv.locks()) {
                byLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(safe);
            }
        }
        for (Map.Entry<String, List<Interval>> entry : byLock.entrySet()) {
            List<Interval> holds = entry.getValue();
            holds.sort(Comparator.comparingLong(Interval::start));
            List<Interval> active = new ArrayList<>();
            for (Interval hold : holds) {
                active.removeIf(other -> other.end() <= hold.start() + params.clockErrorMillis());
                for (Interval other : active) {
                    boolean shared =
                            other.op().inv.kind() == Kind.READ && hold.op().inv.kind() == Kind.READ;
                    if (!shared && !other.op().inv.owner().equals(hold.op().inv.owner())) {
                        long overlap = Math.min(other.end(), hold.end()) - hold.start();
                        violations.add(new Violation(
                                "OVERLAP",
                                "lock '" + entry.getKey() + "' held by two owners for "
                                        + overlap + " ms: [" + other.op() + "] safe " + other.start() + ".."
                                        + other.end()
                                        + " and [" + hold.op() + "] safe " + hold.start() + ".." + hold.end()));
                    }
                }
                active.add(hold);
            }
        }
    }

    /**
     * EARLY_LOSS: a release answered "not held" (IllegalMonitorStateException) before the hold's
     * explicit lease could have run out, with no data-loss fault around: every run of the release
     * script happened before its answer was recorded, so at that moment the lease was still valid,
     * and nothing but the library itself can have removed the hold.
     */
    private void checkEarlyLoss(Op op) {
        List<Op> nest = new ArrayList<>(op.nested);
        nest.add(op);
        long smallestLease = Long.MAX_VALUE;
        for (Op member : nest) {
            long lease = member.inv.leaseMillis();
            if (member.res != null && member.res.phase() != Phase.FAIL) {
                smallestLease = Math.min(smallestLease, lease < 0 ? Long.MAX_VALUE : lease);
            }
        }
        if (smallestLease == Long.MAX_VALUE || op.inv.detail().equals("broken") || "broken".equals(op.res.detail())) {
            return;
        }
        long validUntil = op.inv.time()
                + Math.min(
                        smallestLease,
                        nest.stream().anyMatch(m -> m.inv.leaseMillis() < 0) ? params.watchdogMillis : Long.MAX_VALUE)
                - params.clockErrorMillis;
        for (Op member : nest) {
            Event answer = member.relRes;
            if (answer == null
                    || answer.phase() != Phase.ERR
                    || !answer.detail().contains("IllegalMonitorStateException")
                    || answer.time() >= validUntil) {
                continue;
            }
            boolean dataLoss = faults.stream()
                    .anyMatch(f -> f.dataLoss()
                            && f.start() - params.clockErrorMillis <= answer.time()
                            && f.settled() >= op.inv.time());
            if (!dataLoss) {
                violations.add(new Violation(
                        "EARLY_LOSS",
                        "release answered 'not held' at " + answer.time() + ", "
                                + (validUntil - answer.time()) + " ms before the lease could have run out ("
                                + validUntil
                                + "), with no data-loss fault: [" + member + "]"
                                + (member == op ? "" : " nested in [" + op + "]")
                                + "; faults around: " + faultsAround(op.inv.time(), answer.time())));
            }
        }
    }

    private List<String> faultsAround(long from, long to) {
        return faults.stream()
                .filter(f -> f.start() <= to && f.settled() >= from)
                .map(f -> f.type() + "@" + f.start() + ".." + f.end())
                .toList();
    }

    /** @return the part of a hold during which no documented cause could have ended it, or null */
    private Interval safeInterval(Op op) {
        long start = op.res.time();
        long end = op.relInv != null ? op.relInv.time() : lastTime.get(op.inv.jvm());
        List<Op> nest = new ArrayList<>(op.nested);
        nest.add(op);
        boolean watchdogOnly = true;
        long smallestLease = Long.MAX_VALUE;
        for (Op member : nest) {
            if (member != op && member.res != null && member.res.phase() == Phase.FAIL) {
                return null; // a re-entry refused to its own owner: the hold was already gone
            }
            long lease = member.inv.leaseMillis();
            if (member.res != null && (member.res.phase() == Phase.OK || member.res.phase() == Phase.ERR)) {
                watchdogOnly &= lease < 0;
                smallestLease = Math.min(smallestLease, lease < 0 ? params.watchdogMillis : lease);
            }
        }
        if (watchdogOnly) {
            for (Op member : nest) {
                boolean answeredOk = member.res != null && member.res.phase() == Phase.OK;
                if (answeredOk && (member.relRes == null || member.relRes.phase() != Phase.OK)) {
                    return null;
                }
                if (member.res != null && member.res.phase() == Phase.ERR) {
                    return null;
                }
            }
        } else {
            end = Math.min(end, op.inv.time() + smallestLease - params.clockErrorMillis);
        }
        long lostUntil =
                (op.relRes != null ? op.relRes.time() : end) + params.watchdogMillis + 2 * params.commandTimeoutMillis;
        for (Event report : lost) {
            if (report.owner().equals(op.inv.owner())
                    && report.time() >= op.inv.time()
                    && report.time() <= lostUntil
                    && (op.inv.locks().contains(report.locks().get(0))
                            || !knownName(report.locks().get(0)))) {
                return null;
            }
        }
        for (Fault fault : faults) {
            if (fault.dataLoss()
                    && fault.start() - params.clockErrorMillis <= end
                    && fault.settled() >= op.inv.time()) {
                end = Math.min(end, fault.start() - params.clockErrorMillis);
            }
        }
        return end > start ? new Interval(op, start, end) : null;
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
                    || e.detail().contains("IllegalMonitorStateException")) {
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
