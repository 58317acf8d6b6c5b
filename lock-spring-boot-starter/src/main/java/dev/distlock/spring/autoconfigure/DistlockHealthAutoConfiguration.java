package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.internal.actuator.DistlockHealthIndicator;
import dev.distlock.spring.internal.actuator.RedLockHealthIndicators;
import dev.distlock.spring.internal.config.RedLockClients;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code distlock} health contributor: {@code PING} to the lock client's Redis and, with
 * {@code distlock.redlock.nodes}, one contributor per red-lock node plus a quorum contributor (DOWN
 * only below a majority). Without red-lock nodes it is a single indicator.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnSingleCandidate(LockClient.class)
@ConditionalOnEnabledHealthIndicator("distlock")
public final class DistlockHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = {"distlockHealthIndicator", "distlockHealthContributor"})
    HealthContributor distlockHealthContributor(LockClient client, ObjectProvider<RedLockClients> redLockClients) {
        RedLockClients red = redLockClients.getIfAvailable();
        List<LockClient> nodes = red != null ? red.clients() : List.of();
        DistlockHealthIndicator main = new DistlockHealthIndicator(client);
        if (nodes.isEmpty()) {
            return main;
        }
        Map<String, HealthContributor> contributors = new LinkedHashMap<>();
        contributors.put("redis", main);
        contributors.put("redlock", RedLockHealthIndicators.of(nodes));
        return CompositeHealthContributor.fromMap(contributors);
    }
}
