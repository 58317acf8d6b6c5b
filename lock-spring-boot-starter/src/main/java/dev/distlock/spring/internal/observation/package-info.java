/**
 * What the starter reports about locks: the Micrometer meters and observations fed through the hold
 * runtime's observer hook, the cap on lock-name tags, and the log of recent lock events the endpoint
 * shows. May import the hold runtime only; used by the actuator room and the auto-configurations.
 * Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.observation;

import org.jspecify.annotations.NullMarked;
