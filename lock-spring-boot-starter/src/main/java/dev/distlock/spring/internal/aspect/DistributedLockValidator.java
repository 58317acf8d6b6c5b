package dev.distlock.spring.internal.aspect;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedSemaphore;
import dev.distlock.spring.internal.config.DistlockStartupException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Checks every {@link DistributedLock} method of each bean when the bean is created, so that an
 * invalid annotation fails startup whether the bean gets a JDK or a CGLIB proxy. The problems of
 * all singletons are reported together once they exist, so one failed start lists every method to
 * fix, not only the first; a bean created later fails on its own.
 */
final class DistributedLockValidator implements BeanPostProcessor, SmartInitializingSingleton {

    private static final String REDLOCK_ACTION =
            "Set distlock.redlock.nodes to the independent Redis masters of red " + "locks, or use another lock type.";

    private final ObjectProvider<DistributedLockAdvisor> advisor;
    private final List<Problem> problems = new ArrayList<>();
    private boolean singletonsCreated;

    /**
     * Creates the validator.
     * @param advisor the advisor whose registry parses the annotations
     */
    DistributedLockValidator(ObjectProvider<DistributedLockAdvisor> advisor) {
        this.advisor = advisor;
    }

    private record Problem(String description, String action, IllegalStateException cause) {}

    /** Before initialization, so the check runs before the auto-proxy creator matches the advisor. */
    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        return postProcessAfterInitialization(bean, beanName);
    }

    /** After initialization too, for objects made by factory beans. */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)
                && !AnnotationUtils.isCandidateClass(type, DistributedSemaphore.class)) {
            return bean;
        }
        DistributedLockAdvisor lockAdvisor = advisor.getIfAvailable();
        if (lockAdvisor == null) {
            return bean;
        }
        List<IllegalStateException> found = lockAdvisor.registry().validate(type);
        if (found.isEmpty()) {
            return bean;
        }
        List<Problem> beanProblems = found.stream()
                .map(problem -> new Problem(String.valueOf(problem.getMessage()), action(problem, beanName), problem))
                .toList();
        synchronized (problems) {
            if (!singletonsCreated) {
                beanProblems.stream()
                        .filter(problem -> problems.stream()
                                .noneMatch(known -> known.description().equals(problem.description())))
                        .forEach(problems::add);
                return bean;
            }
        }
        throw failure(beanProblems);
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<Problem> all;
        synchronized (problems) {
            singletonsCreated = true;
            all = List.copyOf(problems);
            problems.clear();
        }
        if (!all.isEmpty()) {
            throw failure(all);
        }
    }

    private static String action(IllegalStateException problem, String beanName) {
        if (problem instanceof DistlockStartupException startup) {
            return startup.getAction();
        }
        if (String.valueOf(problem.getMessage()).contains("distlock.redlock.nodes")) {
            return REDLOCK_ACTION;
        }
        String annotation = annotationOf(problem.getMessage());
        return "Fix the " + annotation + " attribute named above on bean '" + beanName + "'; the Javadoc of "
                + annotation + " describes each attribute.";
    }

    /** @return the annotation a problem's description names first: each starts with "@X on method" */
    private static String annotationOf(@Nullable String description) {
        String text = String.valueOf(description);
        int semaphore = text.indexOf("@DistributedSemaphore");
        int lock = text.indexOf("@DistributedLock");
        return semaphore >= 0 && (lock < 0 || semaphore < lock) ? "@DistributedSemaphore" : "@DistributedLock";
    }

    private static DistlockStartupException failure(List<Problem> all) {
        Problem first = all.get(0);
        if (all.size() == 1) {
            return new DistlockStartupException(first.description(), first.action(), first.cause());
        }
        Set<String> annotations = new LinkedHashSet<>();
        all.forEach(problem -> annotations.add(annotationOf(problem.description())));
        String description = all.size() + " " + String.join(" or ", annotations)
                + " methods would not lock as written:\n"
                + all.stream().map(problem -> "  - " + problem.description()).collect(Collectors.joining("\n"));
        Set<String> actions = new LinkedHashSet<>();
        all.forEach(problem -> actions.add(problem.action().replace(" named above", " named for that method")));
        String action = actions.size() == 1
                ? actions.iterator().next()
                : actions.stream()
                        .map(text -> "  - " + text)
                        .collect(Collectors.joining("\n", "For each method:\n", ""));
        DistlockStartupException failure = new DistlockStartupException(description, action, first.cause());
        all.stream().skip(1).forEach(problem -> failure.addSuppressed(problem.cause()));
        return failure;
    }
}
