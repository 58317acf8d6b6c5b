/**
 * A price catalogue read often and updated rarely: a read-write lock.
 */
@NullMarked
package dev.distlock.samples.prices;

import org.jspecify.annotations.NullMarked;
