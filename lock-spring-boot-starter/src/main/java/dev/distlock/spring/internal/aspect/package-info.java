/**
 * The {@code @DistributedLock} aspect: the advisor and interceptor, the registry of annotated methods
 * with their rules and kinds (blocking, stage, reactive), key resolution from SpEL, startup
 * validation, and release at transaction end. May import the hold runtime and the startup settings;
 * used by the auto-configurations only. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.aspect;

import org.jspecify.annotations.NullMarked;
