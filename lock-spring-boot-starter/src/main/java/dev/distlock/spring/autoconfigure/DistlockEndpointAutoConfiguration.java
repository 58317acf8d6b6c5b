package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.actuator.DistlockEndpoint;
import dev.distlock.spring.internal.config.RedLockClients;
import dev.distlock.spring.internal.hold.HoldIndex;
import dev.distlock.spring.internal.observation.LockEventLog;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code distlock} Actuator endpoint, when exposed; read-only unless
 * {@code management.endpoint.distlock.access=unrestricted}.
 */
@AutoConfiguration(after = {DistlockAutoConfiguration.class, DistlockEventsAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnSingleCandidate(LockClient.class)
@ConditionalOnBean(HoldIndex.class)
@ConditionalOnAvailableEndpoint(DistlockEndpoint.class)
public final class DistlockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DistlockEndpoint distlockEndpoint(
            LockClient client,
            ObjectProvider<RedLockClients> redLockClients,
            HoldIndex holds,
            ObjectProvider<LockEventLog> events) {
        RedLockClients red = redLockClients.getIfAvailable();
        return new DistlockEndpoint(client, red != null ? red.clients() : List.of(), holds, events.getIfAvailable());
    }

    /** The hint that a refused force-unlock names the access property, in Spring MVC applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static class ServletWriteAccessHint {

        @Bean
        DistlockEndpointWriteAccessHint distlockEndpointWriteAccessHint(ObjectProvider<PathMappedEndpoints> endpoints) {
            return new DistlockEndpointWriteAccessHint(endpoints);
        }
    }

    /** The same hint in WebFlux applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebExceptionHandler")
    static class ReactiveWriteAccessHint {

        @Bean
        DistlockReactiveEndpointWriteAccessHint distlockReactiveEndpointWriteAccessHint(
                ObjectProvider<PathMappedEndpoints> endpoints) {
            return new DistlockReactiveEndpointWriteAccessHint(endpoints);
        }
    }
}
