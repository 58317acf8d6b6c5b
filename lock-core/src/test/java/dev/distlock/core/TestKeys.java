package dev.distlock.core;

import dev.distlock.core.test.RedisServer;
import java.util.Arrays;
import java.util.List;

/** Keys a lock leaves behind, apart from unlock latches (which expire by design a few seconds later). */
final class TestKeys {

    private TestKeys() {}

    static List<String> lockKeys(RedisServer redis) {
        String reply = redis.command("KEYS", "*");
        return Arrays.stream(reply.split("\n"))
                .filter(k -> !k.isEmpty())
                .filter(k -> !k.startsWith("redisson_unlock_latch:"))
                .sorted()
                .toList();
    }
}
