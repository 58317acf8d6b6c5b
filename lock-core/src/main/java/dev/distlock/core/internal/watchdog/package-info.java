/**
 * Distlock internals (watchdog). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.watchdog;

import org.jspecify.annotations.NullMarked;
