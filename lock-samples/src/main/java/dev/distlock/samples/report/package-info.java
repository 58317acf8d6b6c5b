/**
 * A scheduled job that runs on one instance only: LockTemplate.tryExecute without waiting.
 */
@NullMarked
package dev.distlock.samples.report;

import org.jspecify.annotations.NullMarked;
