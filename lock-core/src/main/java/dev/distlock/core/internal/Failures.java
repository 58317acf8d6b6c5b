package dev.distlock.core.internal;

import java.util.concurrent.CompletionException;

/** What a failed future failed with, whichever stage reported it. */
public final class Failures {

    private Failures() {}

    /**
     * Returns the failure a dependent stage wrapped in a {@link CompletionException}, or the failure
     * itself when it is not wrapped.
     * @param failure what a {@code whenComplete}/{@code handle} callback received
     * @return the underlying failure
     */
    public static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
