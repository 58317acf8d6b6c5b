package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Defers a release until the surrounding transaction completes, when the locked method joined a
 * transaction that began outside it. Only loaded when spring-tx is present.
 */
final class TransactionReleaseSupport {

    private TransactionReleaseSupport() {}

    /**
     * Registers the release with the current transaction, if one is active.
     * @return whether the release was deferred
     */
    static boolean releaseAfterTransaction(LockExecutor executor, Hold hold) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                // A lost lease fails the commit when the policy says so.
                executor.checkLeaseLost(hold);
            }

            @Override
            public void afterCompletion(int status) {
                executor.release(hold);
            }
        });
        return true;
    }
}
