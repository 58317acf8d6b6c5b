package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.internal.config.DistlockStartupException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains Distlock's startup failures (Redis unreachable with {@code distlock.fail-fast}, an
 * invalid {@code @DistributedLock}) as Boot explains its own: what failed, and what to set.
 */
public final class DistlockFailureAnalyzer extends AbstractFailureAnalyzer<DistlockStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DistlockStartupException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
