/**
 * Spring Boot auto-configuration of Distlock (properties under {@code distlock.*}).
 */
@NullMarked
package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
