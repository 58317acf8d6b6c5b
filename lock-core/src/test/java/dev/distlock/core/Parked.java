package dev.distlock.core;

import java.util.Arrays;

/** Tells whether a thread is parked in a lock's wait for a wake-up, so tests release only then. */
final class Parked {

    private Parked() {
    }

    static boolean inLockWait(Thread thread) {
        return thread.getState() == Thread.State.TIMED_WAITING && Arrays.stream(thread.getStackTrace())
                .anyMatch(frame -> frame.getClassName().endsWith(".ChannelWaiters") && frame.getMethodName().equals("await"));
    }
}
