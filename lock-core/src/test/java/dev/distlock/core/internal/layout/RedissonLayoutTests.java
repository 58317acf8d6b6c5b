package dev.distlock.core.internal.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The layout of every lock key: Redisson's names wherever Redisson's names keep a lock in one
 * Cluster slot, and on a Cluster a layout of one slot for every other key, with no two keys sharing
 * a lock. Checked over every key of up to five characters made of braces, a letter and the escape
 * character, which covers every arrangement of braces Redis' hash-tag rule tells apart.
 */
class RedissonLayoutTests {

    private static final String CLIENT = "c0ffee00-0000-4000-8000-000000000000";

    /** The documented start of the keys that hold the locks Redisson cannot serve on a Cluster. */
    private static final String RESERVED = "distlock_cluster:";

    /** Every string of length 1..5 over the characters that matter to hash tags and to the escape. */
    private static List<String> keys() {
        char[] alphabet = {'{', '}', 'a', '%'};
        List<String> keys = new ArrayList<>();
        List<String> previous = List.of("");
        for (int length = 1; length <= 5; length++) {
            List<String> next = new ArrayList<>();
            for (String prefix : previous) {
                for (char c : alphabet) {
                    next.add(prefix + c);
                }
            }
            keys.addAll(next);
            previous = next;
        }
        keys.addAll(List.of("ключ{}🔒", "x".repeat(3000) + "}{" + "y".repeat(3000), "distlock_cluster:{a{%7D}"));
        return keys;
    }

    /** Redisson's spelling ({@code RedissonObject.prefixName}), written out independently of the code under test. */
    private static String redissonPrefixed(String prefix, String key) {
        return key.contains("{") ? prefix + ":" + key : prefix + ":{" + key + "}";
    }

    /** Redisson's spelling ({@code RedissonObject.suffixName}). */
    private static String redissonSuffixed(String key, String suffix) {
        return key.contains("{") ? key + ":" + suffix : "{" + key + "}:" + suffix;
    }

    private static List<String> everyName(RedissonLayout layout) {
        String field = layout.ownerField(7);
        return List.of(
                layout.key(),
                layout.channel(),
                layout.waiterChannel(field),
                layout.readWriteChannel(),
                layout.unlockLatch("r1"),
                layout.queue(),
                layout.deadlines(),
                layout.token(),
                layout.writers(),
                layout.waitingClients(),
                layout.clientWakeChannel(),
                layout.readHoldTimeout(field, 1),
                layout.readHoldTimeout(layout.writerField(7), 2));
    }

    /** Whether Redisson's own names for the key all hash to the key's slot. */
    private static boolean redissonFitsOneSlot(String key) {
        int slot = SlotHash.getSlot(key);
        return SlotHash.getSlot(redissonPrefixed("redisson_lock__channel", key)) == slot
                && SlotHash.getSlot(redissonPrefixed("redisson_lock_queue", key)) == slot
                && SlotHash.getSlot(redissonSuffixed(key, CLIENT + ":7:rwlock_timeout:1")) == slot;
    }

    @Test
    void whenOnAClusterThenEveryKeyAndChannelOfEveryLockSharesItsSlot() {
        for (String key : keys()) {
            RedissonLayout layout = RedissonLayout.of(key, true, CLIENT);
            int slot = SlotHash.getSlot(layout.key());
            for (String name : everyName(layout)) {
                assertThat(SlotHash.getSlot(name))
                        .as("slot of %s for key %s", name, key)
                        .isEqualTo(slot);
            }
        }
    }

    @Test
    void whenRedissonCanServeAKeyOnAClusterThenItsLayoutIsRedissonsOtherwiseItsOwnKeyIsReserved() {
        for (String key : keys()) {
            RedissonLayout layout = RedissonLayout.of(key, true, CLIENT);
            if (redissonFitsOneSlot(key) && !key.startsWith(RESERVED)) {
                assertRedissons(layout, key);
            } else {
                assertThat(layout.key()).as("key for %s", key).startsWith(RESERVED + "{");
                assertRedissons(layout, layout.key());
            }
        }
    }

    @Test
    void whenNotOnAClusterThenEveryKeyKeepsRedissonsLayout() {
        for (String key : keys()) {
            assertRedissons(RedissonLayout.of(key, false, CLIENT), key);
        }
    }

    @Test
    void whenOnAClusterThenNoKeyOrChannelOfAReservedLayoutIsSharedWithAnyOtherLock() {
        // Redisson's own names already meet for x and {x} (both get redisson_lock__channel:{x});
        // what is checked here is that the layout of the keys Redisson cannot serve adds no such meeting.
        Map<String, List<String>> users = new HashMap<>();
        List<RedissonLayout> reserved = new ArrayList<>();
        for (String key : keys()) {
            RedissonLayout layout = RedissonLayout.of(key, true, CLIENT);
            for (String name : everyName(layout)) {
                users.computeIfAbsent(name, n -> new ArrayList<>()).add(key);
            }
            if (!layout.key().equals(key)) {
                reserved.add(layout);
            }
        }
        assertThat(reserved).hasSizeGreaterThan(500);
        for (RedissonLayout layout : reserved) {
            for (String name : everyName(layout)) {
                assertThat(users.get(name)).as("users of %s", name).hasSize(1);
            }
        }
    }

    @Test
    void whenAKeyHasABraceCloseButNoOpenThenRedissonsLayoutIsKeptExactlyWhenItFitsOneSlot() {
        // Redisson's companions of such a key hash the text before its first '}', which only rarely shares the key's
        // slot.
        String fitting = null;
        for (int i = 0; fitting == null; i++) {
            if (SlotHash.getSlot("h") == SlotHash.getSlot("h}" + i)) {
                fitting = "h}" + i;
            }
        }
        assertRedissons(RedissonLayout.of(fitting, true, CLIENT), fitting);
        assertThat(RedissonLayout.of("h}", true, CLIENT).key()).isEqualTo("distlock_cluster:{h%7D}");
        assertThat(RedissonLayout.of("a{}", true, CLIENT).key()).isEqualTo("distlock_cluster:{a{%7D}");
        assertThat(RedissonLayout.of("%}{", true, CLIENT).key()).isEqualTo("distlock_cluster:{%25%7D{}");
    }

    private static void assertRedissons(RedissonLayout layout, String key) {
        String field = layout.ownerField(7);
        assertThat(layout.key()).isEqualTo(key);
        assertThat(layout.channel()).isEqualTo(redissonPrefixed("redisson_lock__channel", key));
        assertThat(layout.waiterChannel(field))
                .isEqualTo(redissonPrefixed("redisson_lock__channel", key) + ":" + field);
        assertThat(layout.readWriteChannel()).isEqualTo(redissonPrefixed("redisson_rwlock", key));
        assertThat(layout.unlockLatch("r1")).isEqualTo(redissonPrefixed("redisson_unlock_latch", key) + ":r1");
        // As the release scripts name them (layout and grant-record fragments): declared in a cluster.
        assertThat(layout.unlockLatch(field, "5"))
                .isEqualTo(redissonPrefixed("redisson_unlock_latch", key) + ":" + CLIENT + ":5");
        assertThat(layout.unlockLatch(layout.writerField(7), "5")).isEqualTo(layout.unlockLatch(field, "5"));
        assertThat(layout.grantRecord(field)).isEqualTo(redissonPrefixed("distlock_lock_grant", key) + ":" + field);
        assertThat(layout.queue()).isEqualTo(redissonPrefixed("redisson_lock_queue", key));
        assertThat(layout.deadlines()).isEqualTo(redissonPrefixed("redisson_lock_timeout", key));
        assertThat(layout.token()).isEqualTo(redissonPrefixed("redisson_lock_token", key));
        assertThat(layout.readHoldTimeout(field, 3)).isEqualTo(redissonSuffixed(key, field + ":rwlock_timeout:3"));
    }
}
