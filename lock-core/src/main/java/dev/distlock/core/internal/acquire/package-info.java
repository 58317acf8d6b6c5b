/**
 * Distlock internals (acquire): the acquisition pipeline every single-key lock kind shares (attempts,
 * waits, a call's place in its lock's local waiter line, outcomes, release, the blocking wrappers and
 * replica sync) and {@code KindHooks}, the contract a kind supplies to it, with what the composite
 * locks may read of a single-key member. Imports the engine and the rooms below it, never a lock kind;
 * used by the lock kinds and the composite locks. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.acquire;

import org.jspecify.annotations.NullMarked;
