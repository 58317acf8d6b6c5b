/**
 * Redis distributed locks that share Redisson's data layout.
 *
 * <p>Start with {@link dev.distlock.core.LockClient}: it owns one Redis connection, one pub/sub
 * connection and one lease watchdog, and hands out {@link dev.distlock.core.RedisLock}s by name.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
