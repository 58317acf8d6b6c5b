package dev.distlock.core.faults;

import dev.distlock.core.LockClient;
import java.util.concurrent.TimeUnit;

/**
 * Child-process waiter. Arguments: redis URI, lock name. Prints {@code CONNECTED} once its client is
 * connected, waits for the reentrant lock (lease 60 s), prints {@code ACQUIRED} once it holds it,
 * then exits.
 */
public final class LockWaiterMain {

    private LockWaiterMain() {}

    public static void main(String[] args) {
        try (LockClient client = LockClient.create(args[0])) {
            client.ping();
            System.out.println("CONNECTED");
            client.getLock(args[1]).lock(60, TimeUnit.SECONDS);
            System.out.println("ACQUIRED");
        }
    }
}
