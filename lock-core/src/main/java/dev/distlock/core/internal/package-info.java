/**
 * Distlock internals (root): helpers every room may share (unwrapping failures, stages that hand
 * back a grant the caller no longer wants). Imports no room; the rooms are this package's
 * subpackages, in the order {@code InternalRoomsTests} lists. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal;

import org.jspecify.annotations.NullMarked;
