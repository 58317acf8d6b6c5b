/**
 * Distlock's internals. Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal;

import org.jspecify.annotations.NullMarked;
