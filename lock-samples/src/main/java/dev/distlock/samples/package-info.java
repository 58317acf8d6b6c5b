/**
 * Distlock sample application: one service per lock kind.
 */
@NullMarked
package dev.distlock.samples;

import org.jspecify.annotations.NullMarked;
