package dev.distlock.spring.internal.config;

import dev.distlock.core.LockClient;
import java.util.List;

/**
 * The clients of the independent masters of red locks ({@code distlock.redlock.nodes}).
 */
public final class RedLockClients implements AutoCloseable {

    private final List<LockClient> clients;

    /**
     * Creates the holder.
     * @param clients one client per master
     */
    public RedLockClients(List<LockClient> clients) {
        this.clients = List.copyOf(clients);
    }

    /** @return the clients */
    public List<LockClient> clients() {
        return clients;
    }

    @Override
    public void close() {
        clients.forEach(LockClient::close);
    }
}
