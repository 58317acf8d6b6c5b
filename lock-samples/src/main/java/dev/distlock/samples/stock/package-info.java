/**
 * Stock reservation per SKU: a reentrant lock keyed by a parameter.
 */
@NullMarked
package dev.distlock.samples.stock;

import org.jspecify.annotations.NullMarked;
