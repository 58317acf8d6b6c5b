/**
 * Internals of the Distlock Spring integration: advisor, interceptor, key resolution, metrics,
 * endpoint and health. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal;

import org.jspecify.annotations.NullMarked;
