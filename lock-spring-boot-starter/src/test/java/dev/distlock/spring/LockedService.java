package dev.distlock.spring;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Lazy;
import reactor.core.publisher.Mono;

/** Bean with locked methods for the integration tests. */
public class LockedService {

    final AtomicInteger calls = new AtomicInteger();

    public AtomicInteger calls() {
        return calls;
    }

    @Autowired
    @Lazy
    LockedService self;

    @DistributedLock
    public String defaultName() {
        return LockContext.current().name();
    }

    @DistributedLock(name = "orders", key = "#orderId", waitTime = "100ms")
    public String byParameterName(String orderId) {
        calls.incrementAndGet();
        return LockContext.current().name();
    }

    @DistributedLock(name = "p", key = "#p0 + '-' + #a1")
    public String byPosition(String first, int second) {
        return LockContext.current().name();
    }

    @DistributedLock(
            name = "root",
            key = "#root.method.name + ':' + #root.args[0] + ':' + #root.target.getClass().getSimpleName()")
    public String byRoot(String arg) {
        return LockContext.current().name();
    }

    @DistributedLock(name = "${test.lock.name}", key = "@keyBean.prefix() + '${test.lock.region}' + #id")
    public String byBeanAndPlaceholder(String id) {
        return LockContext.current().name();
    }

    @DistributedLock(name = "order", key = "#order.id()")
    public String byProperty(Order order) {
        return LockContext.current().name();
    }

    @DistributedLock(name = "nullable", key = "#id")
    public String nullableKey(String id) {
        calls.incrementAndGet();
        return "ran";
    }

    @DistributedLock(name = "cond", key = "#id", condition = "#lock")
    public boolean conditional(String id, boolean lock) {
        return LockContext.find().isPresent();
    }

    @DistributedLock(name = "reentrant", key = "#id", waitTime = "0")
    public String outer(String id) {
        return self.inner(id);
    }

    @DistributedLock(name = "reentrant", key = "#id", waitTime = "0")
    public String inner(String id) {
        return "inner:" + LockContext.current().name();
    }

    @DistributedLock(name = "skip", waitTime = "0", onFailure = OnFailure.SKIP)
    public String skipped() {
        calls.incrementAndGet();
        return "ran";
    }

    @DistributedLock(name = "skip", waitTime = "0", onFailure = OnFailure.SKIP)
    public Optional<String> skippedOptional() {
        calls.incrementAndGet();
        return Optional.of("ran");
    }

    @DistributedLock(name = "skip", waitTime = "0", onFailure = OnFailure.SKIP)
    public Mono<String> skippedMono() {
        return Mono.just("ran");
    }

    @DistributedLock(name = "fallback", key = "#id", waitTime = "0", onFailure = OnFailure.FALLBACK, fallback = "busy")
    public String withFallback(String id) {
        return "ran";
    }

    public String busy(String id) {
        return "busy:" + id;
    }

    @DistributedLock(name = "throw", waitTime = "50ms")
    public String throwing() {
        return "ran";
    }

    @DistributedLock(name = "failing")
    public String failing() {
        throw new IllegalArgumentException("boom");
    }

    @DistributedLock(name = "future", key = "#id", waitTime = "0")
    public CompletableFuture<String> future(String id, CompletableFuture<String> work) {
        return work;
    }

    @DistributedLock(name = "future", key = "#id", waitTime = "0")
    public CompletableFuture<String> futureNow(String id) {
        return CompletableFuture.completedFuture("now");
    }

    @DistributedLock(name = "mono-wait", key = "#id", waitTime = "10s")
    public Mono<String> monoWaiting(String id) {
        return Mono.just(id);
    }

    @DistributedLock(name = "mono", key = "#id", waitTime = "0")
    public Mono<String> mono(String id, Mono<String> work) {
        calls.incrementAndGet();
        return work;
    }

    @DistributedLock(name = "lease", key = "#id", leaseTime = "200ms")
    public String shortLease(String id, Duration sleep) throws InterruptedException {
        Thread.sleep(sleep.toMillis());
        return "done";
    }

    @DistributedLock(name = "multi", key = "#ids", waitTime = "0")
    public String multi(List<String> ids) {
        calls.incrementAndGet();
        return "multi";
    }

    @DistributedLock(name = "rw", key = "#id", type = LockType.READ, waitTime = "0")
    public String read(String id) {
        return "read";
    }

    @DistributedLock(name = "rw", key = "#id", type = LockType.WRITE, waitTime = "0")
    public String write(String id) {
        return "write";
    }

    @DistributedLock(name = "fair", key = "#id", type = LockType.FAIR, waitTime = "0")
    public String fair(String id) {
        return "fair";
    }

    @DistributedLock(name = "fenced", key = "#id", fenced = true)
    public long fenced(String id) {
        return LockContext.current().fencingToken().orElseThrow();
    }

    @DistributedLock(name = "unfenced")
    public boolean unfenced() {
        return LockContext.current().fencingToken().isPresent();
    }

    /** Argument type for property keys. */
    public record Order(String id) {}

    /** Bean referenced from key expressions. */
    public static class KeyBean {

        public String prefix() {
            return "k-";
        }
    }
}
