/**
 * The runtime of holds, shared by the aspect, the template, the ShedLock bridge and the lock
 * registry: the executor that acquires, renews and releases, the index of live holds, their timers,
 * the current lock context and the observer hook through which metrics and observations hear of
 * acquisitions and holds. Imports
 * no other internal room. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.hold;

import org.jspecify.annotations.NullMarked;
