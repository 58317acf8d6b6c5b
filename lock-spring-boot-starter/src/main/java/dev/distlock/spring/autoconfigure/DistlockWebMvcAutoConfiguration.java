package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.web.LockExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * Maps lock failures in Spring MVC requests to {@code 423 Locked} problem details.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
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
