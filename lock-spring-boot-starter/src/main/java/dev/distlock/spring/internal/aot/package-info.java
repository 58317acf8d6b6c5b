/**
 * Ahead-of-time support, loaded by name from {@code META-INF/spring/aot.factories}: reflection hints
 * for {@code @DistributedLock} methods and their fallbacks, and native-image hints for the Lua
 * scripts and the endpoint's reply types. May import the actuator room (the reply types); no other
 * room imports it. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.aot;

import org.jspecify.annotations.NullMarked;
