/**
 * Distlock as ShedLock's lock provider: {@link dev.distlock.spring.shedlock.DistlockLockProvider}
 * takes the locks of {@code @SchedulerLock} jobs, in Distlock's layout or, during a migration, in
 * the layout of ShedLock's own Redis provider.
 */
@NullMarked
package dev.distlock.spring.shedlock;

import org.jspecify.annotations.NullMarked;
