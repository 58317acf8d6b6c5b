package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.LeaseLostPolicy;
import dev.distlock.spring.internal.hold.Hold;
import dev.distlock.spring.internal.hold.LockExecutor;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Defers a release until the surrounding transaction completes, when the locked method joined a
 * transaction that began outside it. Only loaded when spring-tx is present.
 */
final class TransactionReleaseSupport {

    private static final TransactionAttributeSource ATTRIBUTES = new AnnotationTransactionAttributeSource();

    private TransactionReleaseSupport() {}

    /**
     * Registers the release with the current transaction, if one is active and the method ran in it.
     * @param executor releases the hold
     * @param hold the hold
     * @param method the locked method
     * @param targetClass the bean's class
     * @return whether the release was deferred
     */
    static boolean releaseAfterTransaction(
            LockExecutor executor, Hold hold, Method method, @Nullable Class<?> targetClass) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()
                || !ranInCurrentTransaction(method, targetClass)) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                // The release, which would find an explicit lease gone, comes after the commit: by
                // then the policy can no longer fail it, so judge the lease by the local clock here.
                if (executor.leaseLostPolicy() == LeaseLostPolicy.THROW) {
                    executor.isLeaseLost(hold);
                }
                executor.checkLeaseLost(hold);
            }

            @Override
            public void afterCompletion(int status) {
                executor.release(hold);
            }
        });
        return true;
    }

    /**
     * Tells whether the method's work commits with the transaction active now. A method that
     * suspends it ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED}) committed on its own before
     * returning, unless the lock is ordered inside the method's own transaction, which is then
     * the one active now (named after the method).
     */
    private static boolean ranInCurrentTransaction(Method method, @Nullable Class<?> targetClass) {
        TransactionAttribute attribute = ATTRIBUTES.getTransactionAttribute(method, targetClass);
        if (attribute == null) {
            return true;
        }
        int propagation = attribute.getPropagationBehavior();
        if (propagation != TransactionDefinition.PROPAGATION_REQUIRES_NEW
                && propagation != TransactionDefinition.PROPAGATION_NOT_SUPPORTED) {
            return true;
        }
        String ownName = ClassUtils.getQualifiedMethodName(method, targetClass);
        return ownName.equals(TransactionSynchronizationManager.getCurrentTransactionName());
    }
}
