/**
 * Distlock internals (client options): the settings behind {@code LockClientOptions}, grouped by
 * what they configure, with the rules that check them. Not a supported API: anything here may
 * change in any release.
 */
@NullMarked
package dev.distlock.core.internal.options;

import org.jspecify.annotations.NullMarked;
