/**
 * The Actuator side: the {@code distlock} endpoint with its replies, key inspection and forced
 * unlock, the recent-events report, and the health indicators. May import the hold runtime and
 * observation (the event log); used by the auto-configurations and the AOT hints.
 * Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.actuator;

import org.jspecify.annotations.NullMarked;
