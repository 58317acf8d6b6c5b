package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

/** {@link ReactorLockContext.current()} inside the chain of reactive lock methods, on whatever thread it runs. */
class ReactiveLockContextTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DistlockAutoConfiguration.class, DistlockAspectAutoConfiguration.class))
            .withPropertyValues("distlock.redis.url=" + RedisServers.shared().uri(), "distlock.defaults.wait-time=5s")
            .withBean(ReactiveService.class);

    @Test
    void whenAMonoChainHopsThreadsThenTheLockIsStillExposed() {
        runner.run(context -> {
            String seen = context.getBean(ReactiveService.class).mono("42").block(Duration.ofSeconds(10));
            assertThat(seen).isEqualTo("reactive-ctx:42 held=true threadLocal=false fenced=true");
        });
    }

    @Test
    void whenLocksAreNestedInAFluxChainThenTheInnermostIsExposed() {
        runner.run(context -> {
            assertThat(context.getBean(ReactiveService.class)
                            .flux()
                            .collectList()
                            .block(Duration.ofSeconds(10)))
                    .containsExactly("reactive-flux", "reactive-flux");
        });
    }

    @Test
    void whenReactorPropagatesThreadLocalsThenLockContextIsCurrentInAnOperatorOnAnotherThread() {
        Hooks.enableAutomaticContextPropagation();
        try {
            runner.run(context -> {
                String seen =
                        context.getBean(ReactiveService.class).threadLocal("7").block(Duration.ofSeconds(10));
                assertThat(seen).startsWith("reactive-tl:7 on parallel-");
            });
        } finally {
            Hooks.disableAutomaticContextPropagation();
        }
    }

    @Test
    void whenHandleRestoresThreadLocalsThenLockContextIsCurrentThereWithoutTheGlobalHook() {
        runner.run(context -> {
            String seen = context.getBean(ReactiveService.class).handled("8").block(Duration.ofSeconds(10));
            assertThat(seen).startsWith("reactive-handle:8 on parallel-");
        });
    }

    @Test
    void whenNoLockMethodThenCurrentMonoFails() {
        assertThatIllegalStateException()
                .isThrownBy(() -> ReactorLockContext.current().block(Duration.ofSeconds(5)))
                .withMessageContaining("ReactorLockContext.current()");
    }

    static class ReactiveService {

        @DistributedLock(name = "reactive-ctx", key = "#id", fenced = true)
        public Mono<String> mono(String id) {
            return Mono.delay(Duration.ofMillis(20))
                    .flatMap(tick -> ReactorLockContext.current())
                    .map(lock -> lock.name() + " held=" + lock.isHeld() + " threadLocal="
                            + LockContext.find().isPresent() + " fenced="
                            + lock.fencingToken().isPresent());
        }

        @DistributedLock(name = "reactive-tl", key = "#id")
        public Mono<String> threadLocal(String id) {
            return Mono.delay(Duration.ofMillis(20))
                    .map(tick -> LockContext.current().name() + " on "
                            + Thread.currentThread().getName());
        }

        @DistributedLock(name = "reactive-handle", key = "#id")
        public Mono<String> handled(String id) {
            return Mono.delay(Duration.ofMillis(20))
                    .handle((tick, sink) -> sink.next(LockContext.current().name() + " on "
                            + Thread.currentThread().getName()));
        }

        @DistributedLock(name = "reactive-flux")
        public Flux<String> flux() {
            return Flux.interval(Duration.ofMillis(10)).take(2).concatMap(tick -> ReactorLockContext.current()
                    .map(LockContext::name));
        }
    }
}
