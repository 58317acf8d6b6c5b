package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.web.LockExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * Maps lock failures in Spring MVC and WebFlux requests to problem details: {@code 423 Locked} for
 * a lock not acquired, {@code 503 Service Unavailable} when Redis cannot be reached or the
 * application is shutting down, {@code 409 Conflict} when a method ran but lost its lease. One
 * {@code @ControllerAdvice} serves both stacks.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.web.bind.annotation.ControllerAdvice")
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class DistlockWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(
            prefix = "distlock.web.problem-details",
            name = "enabled",
            havingValue = "true",
            matchIfMissing = true)
    LockExceptionHandler distlockLockExceptionHandler() {
        return new LockExceptionHandler();
    }
}
