package dev.distlock.core.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The resource every lock of a run guards, shared by all client JVMs: per lock name, the set of
 * holds inside their critical section now, kept in a file updated under an exclusive file lock (which
 * excludes other processes). Every holder writes its entry right after its acquisition returned and
 * its exit right before it calls unlock, with its fencing token where it has one. An entry while a
 * hold of another owner is inside (not both read holds) is flagged {@code OVERLAP}, naming the holds
 * inside; {@link ChaosChecker} then decides whether a lease that ran out or a reported loss explains
 * it. The register knows nothing of Redis, so no Redis fault and no clock comparison touches what it
 * sees.
 *
 * <p>A semaphore's section counts instead: any number of holders of permits may be inside, and an
 * entry that finds as many holders inside as the semaphore has permits is flagged
 * {@code OVER_PERMITS}, naming every hold inside ("never more holders than permits").
 *
 * <p>Log line: {@code time op owner kind phase token verdict others}, tab-separated, where {@code op}
 * is {@code jvm#op} of the history and {@code others} the {@code op} ids of the conflicting holds.
 */
final class ExclusionRegister {

    static final String OK = "OK";
    static final String OVERLAP = "OVERLAP";
    static final String OVER_PERMITS = "OVER_PERMITS";

    private final Path dir;

    ExclusionRegister(Path dir) {
        this.dir = dir;
    }

    static Path logOf(Path dir, String lock) {
        return dir.resolve("register-" + lock + ".log");
    }

    /** Enters the critical section of {@code lock}; {@code shared} for a read hold. */
    void enter(String lock, String op, String owner, boolean shared, long token) {
        update(lock, op, owner, shared, token, 0, true);
    }

    void exit(String lock, String op, String owner, boolean shared, long token) {
        update(lock, op, owner, shared, token, 0, false);
    }

    /** Enters the section of a semaphore of {@code permits} permits with the permit of hold {@code op}. */
    void enterPermit(String semaphore, String op, String owner, int permits) {
        update(semaphore, op, owner, true, 0, permits, true);
    }

    void exitPermit(String semaphore, String op, String owner, int permits) {
        update(semaphore, op, owner, true, 0, permits, false);
    }

    // synchronized: a file lock excludes other processes, but threads of one JVM must queue here.
    // permits: 0 for a lock, else the semaphore's permits.
    private synchronized void update(
            String lock, String op, String owner, boolean shared, long token, int permits, boolean in) {
        Path state = dir.resolve("register-" + lock + ".state");
        try (FileChannel channel = FileChannel.open(
                        state, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(64, channel.size()));
            channel.read(buffer, 0);
            List<String> inside = new ArrayList<>();
            for (String line : new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    inside.add(line);
                }
            }
            List<String> others = new ArrayList<>();
            if (in && permits > 0) {
                if (inside.size() >= permits) {
                    inside.forEach(line -> others.add(line.split(" ")[0]));
                }
                inside.add(op + " " + owner + " P");
            } else if (in) {
                for (String line : inside) {
                    String[] f = line.split(" ");
                    boolean bothShared = shared && "R".equals(f[2]);
                    if (!f[1].equals(owner) && !bothShared) {
                        others.add(f[0]);
                    }
                }
                inside.add(op + " " + owner + " " + (shared ? "R" : "X"));
            } else {
                inside.removeIf(line -> line.startsWith(op + " "));
            }
            byte[] next = String.join("\n", inside).getBytes(StandardCharsets.UTF_8);
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(next), 0);
            Files.writeString(
                    logOf(dir, lock),
                    String.join(
                                    "\t",
                                    Long.toString(System.currentTimeMillis()),
                                    op,
                                    owner,
                                    permits > 0 ? "P" : shared ? "R" : "X",
                                    in ? "E" : "X",
                                    Long.toString(token),
                                    others.isEmpty() ? OK : permits > 0 ? OVER_PERMITS : OVERLAP,
                                    others.isEmpty() ? "-" : String.join(",", others))
                            + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * One line of a register log.
     * @param lock lock name
     * @param time wall-clock millis of the write
     * @param op {@code jvm#op} of the hold
     * @param owner {@code jvm:ownerId}
     * @param phase {@code E} or {@code X}
     * @param token fencing token, or 0
     * @param others {@code op} ids of the conflicting holds inside at an entry (of a semaphore: every
     *     hold inside, when there were as many as permits)
     */
    record Entry(String lock, long time, String op, String owner, String phase, long token, List<String> others) {

        static Entry parse(String lock, String line) {
            String[] f = line.split("\t");
            return new Entry(
                    lock,
                    Long.parseLong(f[0]),
                    f[1],
                    f[2],
                    f[4],
                    Long.parseLong(f[5]),
                    "-".equals(f[7]) ? List.of() : List.of(f[7].split(",")));
        }
    }

    static List<Entry> read(Path dir, List<String> locks) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (String lock : locks) {
            Path file = logOf(dir, lock);
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        entries.add(Entry.parse(lock, line));
                    }
                }
            }
        }
        return entries;
    }
}
