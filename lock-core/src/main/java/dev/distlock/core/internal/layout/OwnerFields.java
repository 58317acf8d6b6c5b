package dev.distlock.core.internal.layout;

/**
 * The owner fields of one client, {@code <client id>:<owner id>} (and the write side's
 * {@code ...:write}), built once per owner on each thread rather than on every call: a thread
 * asks for the same owner's field several times per lock+unlock, and usually for its own id.
 */
public final class OwnerFields {

    private final String clientId;
    private final String prefix;
    /** The last owner this thread asked for; per client, since fields start with the client id. */
    private final ThreadLocal<Last> last = ThreadLocal.withInitial(Last::new);

    /** One thread's last owner and its fields; only that thread reads or writes it. */
    private static final class Last {
        private long ownerId;
        private String field;
        private String writerField;
    }

    public OwnerFields(String clientId) {
        this.clientId = clientId;
        this.prefix = clientId + ":";
    }

    /** @return the client's id, the first part of its owner fields */
    String clientId() {
        return clientId;
    }

    /**
     * Returns an owner's field.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>}
     */
    public String field(long ownerId) {
        return of(ownerId).field;
    }

    /**
     * Returns an owner's field on the write side of a read-write lock.
     * @param ownerId thread id or explicit owner id
     * @return {@code <client id>:<owner id>:write}
     */
    String writerField(long ownerId) {
        Last owner = of(ownerId);
        if (owner.writerField == null) {
            owner.writerField = owner.field + ":write";
        }
        return owner.writerField;
    }

    private Last of(long ownerId) {
        Last owner = last.get();
        if (owner.field == null || owner.ownerId != ownerId) {
            owner.ownerId = ownerId;
            owner.field = prefix + ownerId;
            owner.writerField = null;
        }
        return owner;
    }
}
