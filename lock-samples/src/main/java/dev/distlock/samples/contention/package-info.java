/**
 * Concurrent workers incrementing a plain counter with and without a lock.
 */
@NullMarked
package dev.distlock.samples.contention;

import org.jspecify.annotations.NullMarked;
