/**
 * Distlock internals (lock). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.lock;

import org.jspecify.annotations.NullMarked;
