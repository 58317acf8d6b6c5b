/**
 * A transfer between two accounts: both accounts locked.
 */
@NullMarked
package dev.distlock.samples.transfer;

import org.jspecify.annotations.NullMarked;
