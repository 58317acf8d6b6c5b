package dev.distlock.core.internal.lock;

import dev.distlock.core.LockListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls a user listener and swallows (logs) whatever it throws. */
final class SafeLockListener implements LockListener {

    private static final Logger log = LoggerFactory.getLogger(SafeLockListener.class);

    private final LockListener delegate;

    SafeLockListener(LockListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onAcquired(String lockName, long ownerId, long waitNanos) {
        guard(() -> delegate.onAcquired(lockName, ownerId, waitNanos), "onAcquired", lockName);
    }

    @Override
    public void onTimeout(String lockName, long ownerId, long waitNanos) {
        guard(() -> delegate.onTimeout(lockName, ownerId, waitNanos), "onTimeout", lockName);
    }

    @Override
    public void onReleasing(String lockName, long ownerId) {
        guard(() -> delegate.onReleasing(lockName, ownerId), "onReleasing", lockName);
    }

    @Override
    public void onReleased(String lockName, long ownerId) {
        guard(() -> delegate.onReleased(lockName, ownerId), "onReleased", lockName);
    }

    @Override
    public void onLeaseLost(String lockName, long ownerId) {
        guard(() -> delegate.onLeaseLost(lockName, ownerId), "onLeaseLost", lockName);
    }

    private static void guard(Runnable call, String method, String lockName) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("LockListener.{} failed for lock '{}'; ignored", method, lockName, ex);
        }
    }
}
