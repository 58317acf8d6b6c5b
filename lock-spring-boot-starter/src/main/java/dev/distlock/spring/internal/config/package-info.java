/**
 * What the auto-configurations build at startup and hand to the other rooms: the settings of single
 * locks by name, the startup failure the failure analyzer explains, the red-lock node clients and a
 * lock-free first-use supplier. Imports no other internal room; used by the aspect, the template and
 * the auto-configurations. Not a supported API; may change in any release.
 */
@NullMarked
package dev.distlock.spring.internal.config;

import org.jspecify.annotations.NullMarked;
