/**
 * Distlock internals (pubsub). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.pubsub;

import org.jspecify.annotations.NullMarked;
