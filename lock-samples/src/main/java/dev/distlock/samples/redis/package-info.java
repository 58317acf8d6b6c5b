/**
 * Starts an embedded Redis when none is configured.
 */
@NullMarked
package dev.distlock.samples.redis;

import org.jspecify.annotations.NullMarked;
