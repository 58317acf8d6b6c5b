/**
 * Distlock internals (script). Not a supported API: anything here may change in any release.
 */
@NullMarked
package dev.distlock.core.internal.script;

import org.jspecify.annotations.NullMarked;
