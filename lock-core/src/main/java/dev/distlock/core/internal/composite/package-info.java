/**
 * Distlock internals (composite): the acquisitions of the multi lock and the red lock, built on their
 * members' asynchronous API (attempts on every member, the red lock's quorum and validity, the
 * release of what was taken). Imports the acquisition pipeline and the rooms below it; used by the
 * public {@code MultiLock} and {@code RedLock}. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.composite;

import org.jspecify.annotations.NullMarked;
