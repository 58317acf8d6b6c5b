/**
 * Distlock internals (pubsub): the unlock-channel subscriptions of one client on one pub/sub
 * connection (the commands, and apart from them the record of which channels are subscribed and where
 * each subscription stands), each channel's local waiters parked as futures, and re-subscription after
 * a reconnect or a slot move. Imports no other room; used by the engine, the pipeline and the lock
 * kinds. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.pubsub;

import org.jspecify.annotations.NullMarked;
