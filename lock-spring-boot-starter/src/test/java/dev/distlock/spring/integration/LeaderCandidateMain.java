package dev.distlock.spring.integration;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import java.io.IOException;
import java.time.Duration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A leader candidate in a JVM of its own, for {@link LeaderProcessDeathTests}: prints
 * {@code GRANTED <fencing token>} and {@code REVOKED} as its leadership changes, and exits when its
 * standard input closes (so that it never outlives the test JVM).
 * Arguments: Redis URI, role, watchdog timeout in milliseconds.
 */
public final class LeaderCandidateMain {

    private LeaderCandidateMain() {}

    /**
     * Runs the candidate.
     * @param args Redis URI, role, watchdog timeout in ms
     * @throws IOException if standard input fails
     */
    public static void main(String[] args) throws IOException {
        String role = args[1];
        LockClient client = LockClient.create(LockClientOptions.builder()
                .uri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build());
        DistlockLockRegistry registry = new DistlockLockRegistry(client);
        registry.setFenced(true);
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new Candidate() {
            @Override
            public String getRole() {
                return role;
            }

            @Override
            public String getId() {
                return "child-" + ProcessHandle.current().pid();
            }

            @Override
            public void onGranted(Context context) {
                System.out.println("GRANTED " + registry.getFencingToken(role).orElse(-1));
            }

            @Override
            public void onRevoked(Context context) {
                System.out.println("REVOKED");
            }
        });
        initiator.start();
        while (System.in.read() != -1) {
            // Wait for the parent to go away.
        }
        initiator.destroy();
        client.close();
    }
}
