/**
 * Test support for applications that use Distlock: {@link dev.distlock.test.DistlockTestRedis}
 * gives a test class a real, throw-away Redis server and wires Distlock's auto-configuration to it;
 * {@link dev.distlock.test.TestRedis} is that server.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
