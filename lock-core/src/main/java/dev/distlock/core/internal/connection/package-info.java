/**
 * Distlock internals (connection): connecting to a single server, Sentinel or a Cluster, lazily and
 * with the client's reconnect back-off, the dedicated connections the replica-sync guard borrows,
 * and each server's eviction policy, read once per connect. Imports no other room; used by the
 * engine, the pipeline and the public API. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.connection;

import org.jspecify.annotations.NullMarked;
