package dev.distlock.core;

import dev.distlock.core.contract.AbstractRedisLockContractTests;
import java.util.stream.IntStream;

/** A multi lock of three reentrant members keeps the single lock's promises. */
class MultiLockContractTests extends AbstractRedisLockContractTests {

    private static final int MEMBERS = 3;

    @Override
    protected RedisLock newLock(LockClient client, String name) {
        return MultiLock.of(IntStream.rangeClosed(1, MEMBERS)
                .mapToObj(i -> client.getLock(member(name, i)))
                .toArray(RedisLock[]::new));
    }

    @Override
    protected String expectedName(String name) {
        return IntStream.rangeClosed(1, MEMBERS)
                .mapToObj(i -> member(name, i))
                .toList()
                .toString();
    }

    /** A blank or missing name stays so, for the members to reject it as they would alone. */
    private static String member(String name, int index) {
        return name == null || name.isBlank() ? name : name + ":" + index;
    }
}
