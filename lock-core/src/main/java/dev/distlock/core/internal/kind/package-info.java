/**
 * Distlock internals (kind): the lock kinds (reentrant, fenced, fair, read and write) over the shared
 * acquisition pipeline, each supplying its scripts and wake-up channels as {@code KindHooks}, and the
 * reads of a lock's state. Imports the acquisition pipeline and the rooms below it; used by the
 * public API. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.kind;

import org.jspecify.annotations.NullMarked;
