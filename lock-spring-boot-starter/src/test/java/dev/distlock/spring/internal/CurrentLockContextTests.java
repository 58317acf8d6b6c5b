package dev.distlock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CurrentLockContextTests {

    @Test
    void whenEnteredThenLockContextReadsItAndRestoreBringsBackThePrevious() {
        assertThat(LockContext.find()).isEmpty();
        LockContext outerPrevious = CurrentLockContext.enter("outer", LockType.REENTRANT, null, () -> true);
        LockContext outer = LockContext.current();
        LockContext innerPrevious = CurrentLockContext.enter("inner", LockType.REENTRANT, 42L, () -> false);
        try {
            assertThat(outerPrevious).isNull();
            assertThat(innerPrevious).isSameAs(outer);
            LockContext inner = LockContext.current();
            assertThat(inner.name()).isEqualTo("inner");
            assertThat(inner.fencingToken()).contains(42L);
            assertThat(inner.isHeld()).isFalse();
        } finally {
            CurrentLockContext.restore(innerPrevious);
        }
        assertThat(LockContext.current()).isSameAs(outer);
        CurrentLockContext.restore(outerPrevious);
        assertThat(LockContext.find()).isEmpty();
        assertThatIllegalStateException()
                .isThrownBy(LockContext::current)
                .withMessageContaining("LockContext.current()");
    }

    @Test
    void whenLockContextIsInspectedThenItOffersNoWayToSetTheContext() {
        assertThat(Arrays.stream(LockContext.class.getDeclaredMethods())
                        .filter(method -> Modifier.isPublic(method.getModifiers()))
                        .map(Method::getName))
                .doesNotContain("enter", "restore");
        assertThat(LockContext.class.getDeclaredConstructors())
                .allSatisfy(constructor -> assertThat(Modifier.isPrivate(constructor.getModifiers()))
                        .isTrue());
    }

    @Test
    void whenAFactoryIsRegisteredTwiceThenItIsRefused() {
        LockContext.find();
        assertThatIllegalStateException()
                .isThrownBy(() -> CurrentLockContext.registerFactory((name, type, token, held) -> null))
                .withMessageContaining("already registered");
    }
}
