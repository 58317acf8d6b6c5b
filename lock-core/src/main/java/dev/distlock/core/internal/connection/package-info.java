/**
 * Distlock internals (connection). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.connection;

import org.jspecify.annotations.NullMarked;
