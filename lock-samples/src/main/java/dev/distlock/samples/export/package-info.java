/**
 * An asynchronous export returning CompletableFuture, locked until it completes.
 */
@NullMarked
package dev.distlock.samples.export;

import org.jspecify.annotations.NullMarked;
