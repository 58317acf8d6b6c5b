package dev.distlock.core.faults;

import dev.distlock.core.FencedLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Child-process lock holder. Arguments: redis URI, lock name, watchdog ms, lease ms (-1 for the
 * watchdog). Prints {@code TOKEN <n>} once it holds the lock, then follows commands from stdin:
 * {@code WRITE <key>} writes through a token-checking resource and prints {@code WRITE accepted|rejected};
 * {@code UNLOCK} prints {@code UNLOCK ok} or {@code UNLOCK failed <exception>}; {@code EXIT} ends.
 */
public final class LockHolderMain {

    private LockHolderMain() {}

    public static void main(String[] args) throws Exception {
        LockClientOptions options = LockClientOptions.builder()
                .uri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        try (LockClient client = LockClient.create(options)) {
            FencedLock lock = client.getFencedLock(args[1]);
            long token = lock.lockAndGetToken(Long.parseLong(args[3]), TimeUnit.MILLISECONDS);
            System.out.println("TOKEN " + token);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                if (command.startsWith("WRITE ")) {
                    try (TokenCheckingStore store = new TokenCheckingStore(args[0])) {
                        boolean accepted = store.write(command.substring(6), token, "from-child");
                        System.out.println("WRITE " + (accepted ? "accepted" : "rejected"));
                    }
                } else if (command.equals("UNLOCK")) {
                    try {
                        lock.unlock();
                        System.out.println("UNLOCK ok");
                    } catch (RuntimeException ex) {
                        System.out.println("UNLOCK failed " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
                    }
                } else if (command.equals("EXIT")) {
                    return;
                }
            }
        }
    }
}
