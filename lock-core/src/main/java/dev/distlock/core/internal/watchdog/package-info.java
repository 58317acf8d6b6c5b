/**
 * Distlock internals (watchdog): the renewal of every watchdog hold of a client, in batches, and the
 * report of holds found lost. Imports the hold and script rooms; used by the engine, which starts
 * and stops it. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.watchdog;

import org.jspecify.annotations.NullMarked;
