package dev.distlock.samples.cleanup;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.context.annotation.Configuration;

/**
 * Turns on ShedLock. The {@code LockProvider} is the starter's: no bean is declared here.
 */
@Configuration(proxyBeanMethods = false)
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
class SchedulerLockConfiguration {}
