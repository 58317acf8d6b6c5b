package dev.distlock.core.faults;

import dev.distlock.core.LockClient;
import java.util.concurrent.TimeUnit;

/**
 * Child-process waiter. Arguments: redis URI, lock name. Waits for the reentrant lock (lease 60 s),
 * prints {@code ACQUIRED} once it holds it, then exits.
 */
public final class LockWaiterMain {

    private LockWaiterMain() {}

    public static void main(String[] args) {
        try (LockClient client = LockClient.create(args[0])) {
            client.getLock(args[1]).lock(60, TimeUnit.SECONDS);
            System.out.println("ACQUIRED");
        }
    }
}
