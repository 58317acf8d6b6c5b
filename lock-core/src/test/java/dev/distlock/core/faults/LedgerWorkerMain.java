package dev.distlock.core.faults;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Child process of the mutual-exclusion checker. Arguments: redis URI, lock name, ledger key,
 * threads, sections per thread. Every critical section appends {@code E <token>} and then
 * {@code X <token>} to the ledger list, with a random pause (well under the lease) in between.
 * Prints {@code DONE <sections>} at the end.
 */
public final class LedgerWorkerMain {

    private LedgerWorkerMain() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String lockName = args[1];
        String ledger = args[2];
        int threads = Integer.parseInt(args[3]);
        int sections = Integer.parseInt(args[4]);
        RedisClient ledgerClient = RedisClient.create(uri);
        try (LockClient client = LockClient.create(uri);
                StatefulRedisConnection<String, String> ledgerConnection = ledgerClient.connect()) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    FencedLock lock = client.getFencedLock(lockName);
                    for (int i = 0; i < sections; i++) {
                        long token = lock.lockAndGetToken(5, TimeUnit.SECONDS);
                        try {
                            ledgerConnection.sync().rpush(ledger, "E " + token);
                            if (ThreadLocalRandom.current().nextInt(20) == 0) {
                                pause(ThreadLocalRandom.current().nextInt(1, 20));
                            }
                            ledgerConnection.sync().rpush(ledger, "X " + token);
                        } finally {
                            lock.unlock();
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            System.out.println("DONE " + threads * sections);
        } finally {
            ledgerClient.shutdown();
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
