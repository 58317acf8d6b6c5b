/**
 * Distlock internals (hold): what this client holds or may hold, the bookkeeping of holds that the
 * watchdog renews and the engine records, and the acquisitions whose outcome is not known yet.
 * Imports only the script room; used by the watchdog and every room above it. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.hold;

import org.jspecify.annotations.NullMarked;
