package dev.distlock.core.internal.layout;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Redisson's data layout for one lock key, in one place for every kind: the lock hash and its
 * fields, and each companion key and channel, named exactly as Redisson names them so that both
 * libraries meet on the same keys.
 *
 * <p>Companions are named {@code prefix:{key}} (Redisson's {@code prefixName}) or
 * {@code {key}:suffix} ({@code suffixName}); Redisson leaves the braces out when the key already
 * contains a <code>&#123;</code>. Redis Cluster hashes only a key's hash tag when it has one: the
 * text between its first <code>&#123;</code> and the first <code>&#125;</code> after that, if not
 * empty; otherwise the whole key. So Redisson's names keep every key and channel of a lock in the
 * lock key's slot when the key has a hash tag or contains no brace at all, and for a key with a
 * <code>&#125;</code> but no <code>&#123;</code> (<code>a&#125;b</code>) only when the text before
 * the <code>&#125;</code> happens to hash to the key's slot. Every other key (<code>a&#123;</code>,
 * <code>a&#123;&#125;</code>, <code>&#125;&#123;</code>, <code>&#125;</code>) would spread its
 * companions over other slots: CROSSSLOT in a cluster, for Redisson too.
 *
 * <p>Outside a cluster slots do not matter and every key keeps Redisson's names. In a cluster, a key
 * Redisson's names cannot keep in one slot is stored under {@value #CLUSTER_KEY_PREFIX}<code>&#123;</code>
 * key <code>&#125;</code> instead, with every <code>%</code> of the key written {@code %25} and every
 * <code>&#125;</code> {@code %7D} so that the whole key is the hash tag, and its companions are
 * Redisson's names for that key. Keys that begin with {@value #CLUSTER_KEY_PREFIX} are stored that
 * way too, so that no name's lock can meet another's. The scripts derive the read holds' timeout
 * keys from the lock key by Redisson's rule ({@code rw-holds.lua}), which gives the same names.
 */
public final class RedissonLayout {

    /** Start of the key of a lock whose companions Redisson's names would spread over several cluster slots. */
    public static final String CLUSTER_KEY_PREFIX = "distlock_cluster:";

    /** Field of a read-write lock's hash that holds its mode, {@code read} or {@code write}. */
    public static final String MODE_FIELD = "mode";

    /** Value of {@link #MODE_FIELD} while readers hold the lock. */
    public static final String READ_MODE = "read";

    /** Value of {@link #MODE_FIELD} while a writer holds the lock. */
    public static final String WRITE_MODE = "write";

    private final String key;
    private final OwnerFields owners;
    private final boolean cluster;
    private @Nullable String base;

    private RedissonLayout(String key, OwnerFields owners, boolean cluster) {
        this.key = key;
        this.owners = owners;
        this.cluster = cluster;
    }

    /**
     * Describes the layout of one lock key as one client sees it.
     * @param key the lock key (key prefix plus lock name)
     * @param cluster whether the client talks to a Redis Cluster
     * @param clientId the client's id, the first part of its owner fields
     * @return the layout
     */
    public static RedissonLayout of(String key, boolean cluster, String clientId) {
        return of(key, cluster, new OwnerFields(clientId));
    }

    /**
     * Describes the layout of one lock key as one client sees it, with the client's owner fields.
     * @param key the lock key (key prefix plus lock name)
     * @param cluster whether the client talks to a Redis Cluster
     * @param owners the client's owner fields
     * @return the layout
     */
    public static RedissonLayout of(String key, boolean cluster, OwnerFields owners) {
        return new RedissonLayout(cluster ? clusterKey(key) : key, owners, cluster);
    }

    /**
     * Returns a key's hash tag as Redis Cluster finds it.
     * @param key a Redis key
     * @return the tag, or {@code null} when the whole key is hashed
     */
    public static @Nullable String hashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return null;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    /** The key under which a cluster keeps the lock: the key itself when Redisson's names fit its slot. */
    private static String clusterKey(String key) {
        if (redissonFitsOneSlot(key) && !key.startsWith(CLUSTER_KEY_PREFIX)) {
            return key;
        }
        StringBuilder tagged = new StringBuilder(CLUSTER_KEY_PREFIX.length() + key.length() + 8);
        tagged.append(CLUSTER_KEY_PREFIX).append('{');
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '%') {
                tagged.append("%25");
            } else if (c == '}') {
                tagged.append("%7D");
            } else {
                tagged.append(c);
            }
        }
        return tagged.append('}').toString();
    }

    /** Whether Redisson's companions of the key ({key}:..., prefix:{key}, or prefix:key) all hash to its slot. */
    private static boolean redissonFitsOneSlot(String key) {
        if (key.indexOf('{') >= 0) {
            return hashTag(key) != null;
        }
        int close = key.indexOf('}');
        if (close < 0) {
            return true;
        }
        // Companions wrap the key in braces, so their tag is the text before its first '}'.
        return close > 0 && SlotHash.getSlot(key.substring(0, close)) == SlotHash.getSlot(key);
    }

    /** @return the text companions are named after: {key}, or the key itself when it contains a brace */
    private String base() {
        String tagged = base;
        if (tagged == null) {
            // Built when first needed: the scripts name most companions themselves (the layout fragment).
            tagged = key.indexOf('{') < 0 ? "{" + key + "}" : key;
            base = tagged;
        }
        return tagged;
    }

    private String prefixed(String prefix) {
        return prefix + ":" + base();
    }

    /**
     * Returns the key of the lock's hash of owner field to hold count (plus {@link #MODE_FIELD} for
     * read-write locks): the lock key, or in a cluster, for a key Redisson's names cannot keep in one
     * slot, {@value #CLUSTER_KEY_PREFIX}<code>&#123;</code>escaped key<code>&#125;</code>.
     * @return the key of the lock's hash
     */
    public String key() {
        return key;
    }

    /**
     * Returns the unlock channel of a reentrant or fenced lock, on which a release wakes every
     * waiter (Redisson's too). A fair lock's waiters listen on {@link #waiterChannel(String)} instead.
     * @return {@code redisson_lock__channel:{key}}
     */
    public String channel() {
        return prefixed("redisson_lock__channel");
    }

    /**
     * Returns the sorted set of a semaphore's taken permits, each id scored by its expiry in ms
     * since the epoch, as Redisson's {@code RPermitExpirableSemaphore} names it ({@code suffixName}).
     * The semaphore key itself ({@link #key()}) counts the available permits.
     * @return <code>&#123;key&#125;:timeout</code>, or {@code key:timeout} when the key contains a brace
     */
    public String semaphoreTimeouts() {
        return base() + ":timeout";
    }

    /**
     * Returns the channel on which a semaphore's releases announce the permits now available
     * (Redisson's waiters read the message as that number).
     * @return <code>redisson_sc:&#123;key&#125;</code>
     */
    public String semaphoreChannel() {
        return prefixed("redisson_sc");
    }

    /**
     * Returns the channel on which a fair lock tells one queued waiter that it is its turn.
     * @param ownerField the waiter's owner field
     * @return {@code redisson_lock__channel:{key}:<owner field>}
     */
    public String waiterChannel(String ownerField) {
        return channel() + ":" + ownerField;
    }

    /** @return the channel of a read-write lock, on which a release wakes every waiter */
    public String readWriteChannel() {
        return prefixed("redisson_rwlock");
    }

    /**
     * Returns the unlock latch of one release request, which remembers its outcome so that a retry
     * of a request whose reply was lost replays it. The release scripts name it themselves (the
     * layout fragment), from the client id that starts the owner field and the request number.
     * @param requestId the request id: {@code <client id>:<request number>}
     * @return {@code redisson_unlock_latch:{key}:<request id>}
     */
    public String unlockLatch(String requestId) {
        return prefixed("redisson_unlock_latch") + ":" + requestId;
    }

    /**
     * Returns the unlock latch of one release request, named as the release scripts name it: from
     * the client id that starts the owner field and the request number.
     * @param ownerField the releasing owner's field
     * @param requestNumber the request number
     * @return {@code redisson_unlock_latch:{key}:<client id>:<request number>}
     */
    public String unlockLatch(String ownerField, String requestNumber) {
        int colon = ownerField.indexOf(':');
        String client = colon < 0 ? ownerField : ownerField.substring(0, colon);
        return unlockLatch(client + ":" + requestNumber);
    }

    /**
     * Returns an owner's grant record (the grant-record script fragment), the id of the acquire
     * attempt that last took the lock afresh for that owner.
     * @param ownerField the owner's field
     * @return {@code distlock_lock_grant:{key}:<owner field>}
     */
    public String grantRecord(String ownerField) {
        return prefixed("distlock_lock_grant") + ":" + ownerField;
    }

    /**
     * Returns whether the scripts must be given the lock's companion keys in KEYS: in a cluster a
     * live slot migration moves a lock's keys in batches, and Redis holds a script back (ASK, then
     * TRYAGAIN) only until the keys it declares are on one node, so a companion the script touches
     * without declaring it may be on the other node, absent where the script runs though it exists.
     * Elsewhere the scripts name their companions themselves, which keeps the calls small.
     * @return whether companions are declared
     */
    public boolean declaresCompanions() {
        return cluster;
    }

    /** @return a fair lock's list of queued owner fields, {@code redisson_lock_queue:{key}} */
    public String queue() {
        return prefixed("redisson_lock_queue");
    }

    /** @return a fair lock's zset of queued owner field to deadline, {@code redisson_lock_timeout:{key}} */
    public String deadlines() {
        return prefixed("redisson_lock_timeout");
    }

    /** @return a fenced lock's token counter, {@code redisson_lock_token:{key}} */
    public String token() {
        return prefixed("redisson_lock_token");
    }

    /** @return a read-write lock's zset of waiting writer field to claim deadline, {@code distlock_rwlock_writers:{key}} */
    public String writers() {
        return prefixed("distlock_rwlock_writers");
    }

    /** @return the set of client ids with a waiter parked on a reentrant lock, {@code distlock_lock_waiters:{key}} */
    public String waitingClients() {
        return prefixed("distlock_lock_waiters");
    }

    /** @return the prefix of the per-client wake-up channels, {@code distlock_lock__wake:{key}:} */
    public String wakePrefix() {
        return prefixed("distlock_lock__wake") + ":";
    }

    /** @return the channel on which this client's waiters are woken one at a time */
    public String clientWakeChannel() {
        return wakePrefix() + owners.clientId();
    }

    /**
     * Returns the key whose TTL is the lease of one read hold. The scripts that decide on it are
     * given it in KEYS (in a cluster, a slot migration may have moved it apart from the hash).
     * @param readerField the reader's owner field
     * @param hold the hold's number, from 1
     * @return {@code {key}:<reader field>:rwlock_timeout:<n>}
     */
    public String readHoldTimeout(String readerField, int hold) {
        return base() + ":" + readerField + ":rwlock_timeout:" + hold;
    }

    /**
     * Returns the timeout keys of a reader's holds 1 to {@code holds} (at least the first) on the
     * lock kept at a lock key, as {@link #readHoldTimeout(String, int)} names them.
     * @param lockKey the key of the lock's hash ({@link #key()})
     * @param readerField the reader's owner field
     * @param holds how many holds the reader is known to have
     * @return the keys, hold 1 first
     */
    public static List<String> readHoldTimeouts(String lockKey, String readerField, int holds) {
        String prefix =
                (lockKey.indexOf('{') < 0 ? "{" + lockKey + "}" : lockKey) + ":" + readerField + ":rwlock_timeout:";
        List<String> keys = new ArrayList<>();
        for (int hold = 1; hold <= Math.max(1, holds); hold++) {
            keys.add(prefix + hold);
        }
        return keys;
    }

    /**
     * Returns the timeout keys of every hold of every reader in a read-write lock's hash (the
     * fields of {@code HGETALL}), plus those of the caller's holds up to its next one.
     * @param lockKey the key of the lock's hash ({@link #key()})
     * @param fields the hash's fields and values
     * @param nextOf the reader field whose next hold's key is wanted too, or {@code null}
     * @return the keys
     */
    public static List<String> readHoldTimeouts(
            String lockKey, java.util.Map<String, String> fields, @Nullable String nextOf) {
        List<String> keys = new ArrayList<>();
        boolean nextDone = nextOf == null;
        for (java.util.Map.Entry<String, String> field : fields.entrySet()) {
            String reader = field.getKey();
            if (reader.equals(MODE_FIELD) || reader.endsWith(":write")) {
                continue;
            }
            int count;
            try {
                count = Integer.parseInt(field.getValue());
            } catch (NumberFormatException ex) {
                // Not a hold count: the scripts skip the field too.
                continue;
            }
            boolean next = reader.equals(nextOf);
            nextDone |= next;
            if (count > 0 || next) {
                keys.addAll(readHoldTimeouts(lockKey, reader, next ? count + 1 : count));
            }
        }
        if (!nextDone) {
            keys.addAll(readHoldTimeouts(lockKey, nextOf, 1));
        }
        return keys;
    }

    /**
     * Returns the owner field of an owner of a reentrant, fenced or fair lock, or of the read side.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>}
     */
    public String ownerField(long ownerId) {
        return owners.field(ownerId);
    }

    /**
     * Returns the owner field of an owner of the write side.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>:write}
     */
    public String writerField(long ownerId) {
        return owners.writerField(ownerId);
    }

    /**
     * Returns the owner field of an owner of a client.
     * @param clientId the client's id
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>}
     */
    public static String ownerField(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }
}
