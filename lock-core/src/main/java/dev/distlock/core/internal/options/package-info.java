/**
 * Distlock internals (options): the settings behind {@code LockClientOptions}, grouped by what they
 * configure, with the rules that check them. Imports no other room; used by
 * {@code LockClientOptions} in the public API. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.options;

import org.jspecify.annotations.NullMarked;
