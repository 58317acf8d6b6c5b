/**
 * The programmatic side: the {@code LockTemplate} the auto-configuration exposes, which locks a
 * callback through the hold runtime. May import the hold runtime and the startup settings; used by
 * the auto-configurations only. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.template;

import org.jspecify.annotations.NullMarked;
