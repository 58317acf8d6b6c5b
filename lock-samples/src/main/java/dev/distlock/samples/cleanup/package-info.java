/**
 * A scheduled job under ShedLock's {@code @SchedulerLock}, locked by the starter's
 * {@code DistlockLockProvider}: its lock is a Distlock lock named after the job.
 */
@NullMarked
package dev.distlock.samples.cleanup;

import org.jspecify.annotations.NullMarked;
