package dev.distlock.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** Application of the integration tests. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestApplication {

    @Bean
    LockedService lockedService() {
        return new LockedService();
    }

    @Bean
    LockedService.KeyBean keyBean() {
        return new LockedService.KeyBean();
    }
}
