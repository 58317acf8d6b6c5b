/**
 * A leader-elected task: Spring Integration's {@code LockRegistryLeaderInitiator} over the
 * starter's {@code DistlockLockRegistry}, with the leader's fencing token.
 */
@NullMarked
package dev.distlock.samples.leader;

import org.jspecify.annotations.NullMarked;
