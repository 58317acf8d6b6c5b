package dev.distlock.core.test;

import org.testcontainers.containers.GenericContainer;

/**
 * Last resort when no {@code redis-server} binary runs here but Docker does. Restart keeps the
 * mapped port only as long as Docker reuses it, so multi-node fault tests prefer binaries.
 */
final class ContainerRedisServer implements RedisServer {

    private final GenericContainer<?> container;

    @SuppressWarnings("resource")
    ContainerRedisServer() {
        this.container = new GenericContainer<>("redis:7.2-alpine")
                .withExposedPorts(6379)
                .withCommand("redis-server", "--save", "", "--appendonly", "no");
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return container.getMappedPort(6379);
    }

    @Override
    public boolean isRunning() {
        return container.isRunning();
    }

    @Override
    public void start() {
        container.start();
    }

    @Override
    public void stop() {
        container.stop();
    }

    @Override
    public void pause() {
        container
                .getDockerClient()
                .pauseContainerCmd(container.getContainerId())
                .exec();
    }

    @Override
    public void resume() {
        container
                .getDockerClient()
                .unpauseContainerCmd(container.getContainerId())
                .exec();
    }

    @Override
    public String command(String... args) {
        return RespClient.call(host(), port(), 5000, args);
    }

    static boolean dockerAvailable() {
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable ex) {
            return false;
        }
    }
}
