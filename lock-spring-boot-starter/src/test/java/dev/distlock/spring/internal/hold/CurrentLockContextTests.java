package dev.distlock.spring.internal.hold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockType;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CurrentLockContextTests {

    @Test
    void whenEnteredThenLockContextReadsItAndRestoreBringsBackThePrevious() {
        assertThat(LockContext.find()).isEmpty();
        CurrentLockContext.Frame outerPrevious =
                CurrentLockContext.enter("outer", LockType.REENTRANT, null, () -> true);
        CurrentLockContext.Frame outer = CurrentLockContext.get();
        CurrentLockContext.Frame innerPrevious =
                CurrentLockContext.enter("inner", LockType.REENTRANT, 42L, () -> false);
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
        assertThat(LockContext.current().name()).isEqualTo("outer");
        assertThat(LockContext.current().isHeld()).isTrue();
        assertThat(LockContext.current().fencingToken()).isEmpty();
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

    // The public type reads the internal one; the internal one must not name the public type back.
    @Test
    void shouldNotReferToLockContextFromTheInternalHolder() throws IOException {
        for (Class<?> type : List.of(CurrentLockContext.class, CurrentLockContext.Frame.class)) {
            String classFile;
            try (InputStream in = type.getResourceAsStream(
                    type.getName().substring(type.getName().lastIndexOf('.') + 1) + ".class")) {
                assertThat(in).as("class file of %s", type).isNotNull();
                classFile = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            }
            assertThat(Pattern.compile("dev/distlock/spring/LockContext(?![\\w$])")
                            .matcher(classFile)
                            .find())
                    .as("%s names dev.distlock.spring.LockContext", type.getName())
                    .isFalse();
        }
    }
}
