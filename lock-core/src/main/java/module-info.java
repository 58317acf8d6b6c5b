/**
 * Distlock's lock core: Redis-backed locks that keep Redisson's data layout. Only
 * {@code dev.distlock.core} is API; the {@code internal} packages stay inside the module.
 */
module dev.distlock.core {
    // Public types take Lettuce's ClientResources and SslOptions, so readers of this module read Lettuce too.
    requires transitive lettuce.core;
    requires org.slf4j;
    // Tells a Redis I/O thread from other threads, which must not open connections on it.
    requires io.netty.common;
    // Shared Lettuce resources are wrapped to give the client its own reconnect back-off.
    requires io.netty.resolver;
    // Lettuce publishes connection events as a Flux; the client listens for reconnects.
    requires reactor.core;
    requires static org.jspecify;

    exports dev.distlock.core;
}
