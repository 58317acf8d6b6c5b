package dev.distlock.core.faults;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisSemaphore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Child-process permit holder. Arguments: redis URI, semaphore name, watchdog ms. Takes a watchdog
 * permit, prints {@code PERMIT <id>}, then waits on stdin until {@code EXIT} or its end.
 */
public final class SemaphoreHolderMain {

    private SemaphoreHolderMain() {}

    public static void main(String[] args) throws Exception {
        LockClientOptions options = LockClientOptions.builder()
                .uri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        try (LockClient client = LockClient.create(options)) {
            RedisSemaphore semaphore = client.getSemaphore(args[1]);
            String permit = semaphore.acquire(-1, TimeUnit.MILLISECONDS);
            System.out.println("PERMIT " + permit);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                if (command.equals("EXIT")) {
                    return;
                }
            }
        }
    }
}
