/**
 * Distlock internals (layout): the keys, channels and hash fields of every lock kind, kept as
 * Redisson lays them out. Imports no other room; used by everything that builds a script's keys
 * or arguments. Not a supported API.
 */
@NullMarked
package dev.distlock.core.internal.layout;

import org.jspecify.annotations.NullMarked;
