/**
 * A ticket counter served in arrival order: a fair lock.
 */
@NullMarked
package dev.distlock.samples.tickets;

import org.jspecify.annotations.NullMarked;
