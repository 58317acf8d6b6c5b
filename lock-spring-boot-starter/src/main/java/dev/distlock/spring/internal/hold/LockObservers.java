package dev.distlock.spring.internal.hold;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Tells several observers, in order, of one acquisition and the hold that follows. */
final class LockObservers implements LockObserver {

    private final List<LockObserver> observers;

    LockObservers(List<LockObserver> observers) {
        this.observers = List.copyOf(observers);
    }

    @Override
    public Acquiring acquireStarted(LockRequest request, long ownerId) {
        List<Acquiring> acquisitions = new ArrayList<>(observers.size());
        for (LockObserver observer : observers) {
            acquisitions.add(observer.acquireStarted(request, ownerId));
        }
        return new Acquiring() {
            @Override
            public Scope openScope() {
                List<Scope> scopes = new ArrayList<>(acquisitions.size());
                acquisitions.forEach(acquiring -> scopes.add(acquiring.openScope()));
                // Closed innermost first, as nested scopes must be.
                return () -> {
                    for (int i = scopes.size() - 1; i >= 0; i--) {
                        scopes.get(i).close();
                    }
                };
            }

            @Override
            public Holding acquired() {
                List<Holding> holdings = new ArrayList<>(acquisitions.size());
                acquisitions.forEach(acquiring -> holdings.add(acquiring.acquired()));
                return new Holding() {
                    @Override
                    public void leaseLost() {
                        holdings.forEach(Holding::leaseLost);
                    }

                    @Override
                    public void releasing() {
                        holdings.forEach(Holding::releasing);
                    }

                    @Override
                    public void released() {
                        holdings.forEach(Holding::released);
                    }
                };
            }

            @Override
            public void ended(Outcome outcome, @Nullable Throwable error) {
                acquisitions.forEach(acquiring -> acquiring.ended(outcome, error));
            }
        };
    }

    @Override
    public Runnable propagating(Runnable task) {
        Runnable wrapped = task;
        for (LockObserver observer : observers) {
            wrapped = observer.propagating(wrapped);
        }
        return wrapped;
    }
}
