/**
 * Lock statistics for the live page.
 */
@NullMarked
package dev.distlock.samples.web;

import org.jspecify.annotations.NullMarked;
