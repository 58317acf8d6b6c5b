/**
 * Spring integration of Distlock: {@link dev.distlock.spring.DistributedLock @DistributedLock} on
 * bean methods and {@link dev.distlock.spring.LockTemplate} for programmatic use.
 */
@NullMarked
package dev.distlock.spring;

import org.jspecify.annotations.NullMarked;
