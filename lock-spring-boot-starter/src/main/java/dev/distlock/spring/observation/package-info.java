/**
 * Micrometer Observation support: the {@code distlock.acquire} and {@code distlock.held}
 * observations, their context and replaceable conventions.
 */
@NullMarked
package dev.distlock.spring.observation;

import org.jspecify.annotations.NullMarked;
