/**
 * Distlock internals (engine): what every call goes through, the client-wide {@code LockEngine}
 * with its connection, calls, reply deadlines, retries, listeners and local waiter lines. Imports
 * the hold, layout, script, connection, pubsub and watchdog rooms; used by the acquisition
 * pipeline, the lock kinds and the public API. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.engine;

import org.jspecify.annotations.NullMarked;
