/**
 * Distlock internals (script): the Lua scripts' typed calls, each script loaded once and run by
 * {@code EVALSHA}. Imports the root package's helpers only; used by the holds, the watchdog, the
 * engine, the pipeline and the lock kinds. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.script;

import org.jspecify.annotations.NullMarked;
