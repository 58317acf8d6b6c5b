/**
 * Internals of Distlock's test support; not a supported API, and may change in any release.
 */
@NullMarked
package dev.distlock.test.internal;

import org.jspecify.annotations.NullMarked;
