/**
 * Distlock as Spring Integration's lock registry:
 * {@link dev.distlock.spring.integration.DistlockLockRegistry} serves aggregators, idempotent
 * receivers, {@code LockRequestHandlerAdvice} and leader election through
 * {@code LockRegistryLeaderInitiator}.
 */
@NullMarked
package dev.distlock.spring.integration;

import org.jspecify.annotations.NullMarked;
