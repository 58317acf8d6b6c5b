/**
 * Distlock internals (composite locks: the multi lock and the red lock, built on their members'
 * asynchronous API). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.composite;

import org.jspecify.annotations.NullMarked;
