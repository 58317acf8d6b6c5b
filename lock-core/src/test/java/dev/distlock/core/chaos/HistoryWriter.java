package dev.distlock.core.chaos;

import dev.distlock.core.chaos.Event.Kind;
import dev.distlock.core.chaos.Event.Phase;
import dev.distlock.core.chaos.Event.Type;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Appends a client JVM's events to its history file, one flushed line each, so that a JVM that is
 * killed loses at most the line being written.
 */
final class HistoryWriter implements AutoCloseable {

    private final BufferedWriter out;
    private final String jvm;
    private final AtomicLong ops = new AtomicLong();

    HistoryWriter(Path file, String jvm) {
        this.jvm = jvm;
        try {
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    long nextOp() {
        return ops.incrementAndGet();
    }

    /** @return the op's id across the run, {@code jvm#op} */
    String opId(long op) {
        return jvm + "#" + op;
    }

    String owner(long ownerId) {
        return jvm + ":" + ownerId;
    }

    void record(
            long op,
            long parent,
            Type type,
            Phase phase,
            Kind kind,
            List<String> locks,
            long ownerId,
            long waitMillis,
            long leaseMillis,
            long token,
            String detail) {
        recordAt(
                System.currentTimeMillis(),
                op,
                parent,
                type,
                phase,
                kind,
                locks,
                ownerId,
                waitMillis,
                leaseMillis,
                token,
                detail);
    }

    /** Records an event that happened at {@code atMillis}, earlier than now (a call's real start, say). */
    void recordAt(
            long atMillis,
            long op,
            long parent,
            Type type,
            Phase phase,
            Kind kind,
            List<String> locks,
            long ownerId,
            long waitMillis,
            long leaseMillis,
            long token,
            String detail) {
        write(new Event(
                atMillis,
                jvm,
                op,
                parent,
                type,
                phase,
                kind,
                locks,
                owner(ownerId),
                waitMillis,
                leaseMillis,
                token,
                detail));
    }

    synchronized void write(Event event) {
        try {
            out.write(event.toLine());
            out.newLine();
            out.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
