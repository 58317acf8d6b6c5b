package dev.distlock.core;

import java.time.Instant;

/**
 * One hold a {@link LockClient} has taken and not released, as the client knows it.
 *
 * @param name lock name (without key prefix)
 * @param kind lock kind: {@link LockKind#REENTRANT}, {@link LockKind#FENCED}, {@link LockKind#FAIR},
 *     {@link LockKind#READ} or {@link LockKind#WRITE} (a red lock's holds are its members')
 * @param ownerId thread id, or an id from {@link RedisLock#newOwnerId()}
 * @param holdCount how many times the owner took it
 * @param since when the owner first took it
 * @param watchdog whether the watchdog renews its lease
 */
public record HeldLock(String name, LockKind kind, long ownerId, int holdCount, Instant since, boolean watchdog) {}
