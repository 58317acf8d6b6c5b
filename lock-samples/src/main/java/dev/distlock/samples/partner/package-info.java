/**
 * Calls to a slow partner API throttled by a distributed semaphore: at most a few at once across every
 * instance, however many callers there are.
 */
@NullMarked
package dev.distlock.samples.partner;

import org.jspecify.annotations.NullMarked;
