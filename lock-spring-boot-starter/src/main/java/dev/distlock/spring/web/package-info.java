/**
 * Spring MVC integration: lock failures in web requests answered with problem details.
 */
@NullMarked
package dev.distlock.spring.web;

import org.jspecify.annotations.NullMarked;
