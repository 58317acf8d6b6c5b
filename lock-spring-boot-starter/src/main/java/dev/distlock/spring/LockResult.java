package dev.distlock.spring;

import java.util.NoSuchElementException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Outcome of {@link LockTemplate#tryExecute}: whether the callback ran, and what it returned.
 * Tells "did not get the lock" apart from "ran and returned {@code null}".
 *
 * @param <T> result type
 */
public final class LockResult<T> {

    private static final LockResult<?> NOT_ACQUIRED = new LockResult<>(false, null);

    private final boolean executed;
    private final @Nullable T value;

    private LockResult(boolean executed, @Nullable T value) {
        this.executed = executed;
        this.value = value;
    }

    /**
     * Returns a result of a callback that ran.
     * @param value what it returned, may be {@code null}
     * @param <T> result type
     * @return the result
     */
    public static <T> LockResult<T> executed(@Nullable T value) {
        return new LockResult<>(true, value);
    }

    /**
     * Returns the result of a call that did not get the lock.
     * @param <T> result type
     * @return the result
     */
    @SuppressWarnings("unchecked")
    public static <T> LockResult<T> notAcquired() {
        return (LockResult<T>) NOT_ACQUIRED;
    }

    /**
     * Returns whether the lock was acquired and the callback ran.
     * @return whether the callback ran
     */
    public boolean wasExecuted() {
        return executed;
    }

    /**
     * Returns what the callback returned.
     * @return the value, may be {@code null}
     * @throws NoSuchElementException if the callback did not run
     */
    public @Nullable T getValue() {
        if (!executed) {
            throw new NoSuchElementException("The lock was not acquired, so there is no value");
        }
        return value;
    }

    /**
     * Returns the value when the callback ran and returned non-null.
     * @return the value, or empty
     */
    public Optional<T> toOptional() {
        return Optional.ofNullable(value);
    }

    @Override
    public String toString() {
        return executed ? "LockResult[executed, value=" + value + "]" : "LockResult[not acquired]";
    }
}
