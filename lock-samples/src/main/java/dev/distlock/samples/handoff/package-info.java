/**
 * Workers passing one exclusive lock from hand to hand, drawn on the page's timeline.
 */
@NullMarked
package dev.distlock.samples.handoff;

import org.jspecify.annotations.NullMarked;
