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

/**
 * A resource guarded by fencing tokens, shared by every client JVM of a run: per lock name, a file
 * holding the highest token seen, updated under an exclusive file lock (which excludes other
 * processes), and a log of every write. Like Kleppmann's token-checking storage it accepts a write
 * whose token is not below the highest seen, and rejects a lower one. It lives on disk, not in Redis,
 * so no Redis fault touches it.
 *
 * <p>A write carrying the highest token but from another owner is accepted (the store cannot tell)
 * and logged as {@code DUP}: two owners held the same token, which is exactly what fencing is meant
 * to make impossible. {@link ChaosChecker} reports each {@code DUP} unless a fault that loses Redis
 * data (restart, failover) could have reset the token counter.
 */
final class FencedLedger {

    static final String ACCEPT = "ACCEPT";
    static final String REJECT = "REJECT";
    static final String DUP = "DUP";

    private final Path dir;

    FencedLedger(Path dir) {
        this.dir = dir;
    }

    static Path logOf(Path dir, String lock) {
        return dir.resolve("ledger-" + lock + ".log");
    }

    /**
     * Writes one entry of a critical section.
     * @param lock the lock name the section runs under
     * @param token the fencing token the writer holds
     * @param owner {@code jvm:ownerId}
     * @param phase {@code E} (enter) or {@code X} (exit)
     * @return {@link #ACCEPT}, {@link #REJECT} or {@link #DUP}
     */
    // synchronized: a file lock excludes other processes, but threads of one JVM must queue here.
    synchronized String write(String lock, long token, String owner, String phase) {
        Path state = dir.resolve("ledger-" + lock + ".state");
        try (FileChannel channel = FileChannel.open(
                        state, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(64, channel.size()));
            channel.read(buffer, 0);
            String[] current = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8)
                    .trim()
                    .split(" ");
            long highest = current.length == 2 ? Long.parseLong(current[0]) : 0;
            String highestOwner = current.length == 2 ? current[1] : "";
            String verdict = token < highest ? REJECT : token == highest && !owner.equals(highestOwner) ? DUP : ACCEPT;
            if (!verdict.equals(REJECT)) {
                byte[] next = (token + " " + owner).getBytes(StandardCharsets.UTF_8);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap(next), 0);
            }
            Files.writeString(
                    logOf(dir, lock),
                    String.join(
                                    "\t",
                                    Long.toString(System.currentTimeMillis()),
                                    owner,
                                    Long.toString(token),
                                    phase,
                                    verdict)
                            + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            return verdict;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
