package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.internal.ActiveHolds;
import dev.distlock.spring.internal.DefaultLockTemplate;
import dev.distlock.spring.internal.DistlockLockListener;
import dev.distlock.spring.internal.LockExecutor;
import dev.distlock.spring.internal.LockFactory;
import dev.distlock.spring.internal.LockObserver;
import dev.distlock.spring.internal.RedLockClients;

/**
 * Auto-configures a {@link LockClient} and a {@link LockTemplate} from {@code distlock.*}.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public final class DistlockAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(DistlockAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    ActiveHolds distlockActiveHolds(DistlockProperties properties, ObjectProvider<LockObserver> observer) {
        return new ActiveHolds(lazy(observer), properties.getLeaseLostPolicy());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient distlockClient(DistlockProperties properties, Environment environment, ActiveHolds holds,
            ObjectProvider<LockListener> listeners, ObjectProvider<DistlockClientCustomizer> customizers,
            ObjectProvider<RedisConnectionResolver.SpringRedisConnection> springRedis) {
        LockClientOptions.Builder builder = LockClientOptions.builder()
                .keyPrefix(properties.getKeyPrefix())
                .watchdogTimeout(properties.getWatchdogTimeout())
                .commandTimeout(properties.getRedis().getTimeout())
                .clientName(properties.getRedis().getClientName())
                .listener(new DistlockLockListener(holds, listeners.orderedStream().toList()));
        RedisConnectionResolver.Source source = RedisConnectionResolver.apply(builder, properties.getRedis(),
                springRedis.getIfAvailable(), environment);
        logger.debug("Distlock connects using the {} connection settings", source);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        LockClient client = LockClient.create(builder.build());
        if (properties.isFailFast()) {
            checkReachable(client, "distlock.redis");
        }
        return client;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RedLockClients distlockRedLockClients(DistlockProperties properties) {
        List<LockClient> clients = properties.getRedlock().getNodes().stream()
                .map(node -> LockClient.create(LockClientOptions.builder()
                        .uri(node)
                        .keyPrefix(properties.getKeyPrefix())
                        .watchdogTimeout(properties.getWatchdogTimeout())
                        .commandTimeout(properties.getRedis().getTimeout())
                        .build()))
                .toList();
        RedLockClients redLockClients = new RedLockClients(clients);
        if (properties.isFailFast()) {
            clients.forEach(client -> checkReachable(client, "distlock.redlock.nodes"));
        }
        return redLockClients;
    }

    @Bean
    @ConditionalOnMissingBean
    LockFactory distlockLockFactory(LockClient client, RedLockClients redLockClients) {
        return new LockFactory(client, redLockClients.clients());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockExecutor distlockLockExecutor(LockFactory factory, ActiveHolds holds, DistlockProperties properties,
            ObjectProvider<LockObserver> observer) {
        return new LockExecutor(factory, holds, lazy(observer), properties.getWatchdog().getMaxHold());
    }

    @Bean
    @ConditionalOnMissingBean
    LockTemplate distlockLockTemplate(LockExecutor executor, DistlockProperties properties) {
        return new DefaultLockTemplate(executor, properties.getDefaults().getWaitTime(),
                properties.getDefaults().getLeaseTime());
    }

    private static void checkReachable(LockClient client, String property) {
        try {
            Duration latency = client.ping();
            logger.debug("Redis answered PING in {}", latency);
        }
        catch (LockException ex) {
            client.close();
            throw new IllegalStateException("Redis is unreachable (" + property + ") and distlock.fail-fast=true: "
                    + ex.getMessage(), ex);
        }
    }

    private static java.util.function.Supplier<LockObserver> lazy(ObjectProvider<LockObserver> provider) {
        return new java.util.function.Supplier<>() {
            private volatile @Nullable LockObserver resolved;

            @Override
            public LockObserver get() {
                LockObserver observer = resolved;
                if (observer == null) {
                    observer = provider.getIfAvailable(() -> LockObserver.NO_OP);
                    resolved = observer;
                }
                return observer;
            }
        };
    }

    /** Uses Spring Boot's Redis connection details when spring-boot-data-redis provides them. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataRedisConnectionDetails.class)
    static class DataRedisConnectionConfiguration {

        @Bean
        @ConditionalOnBean(DataRedisConnectionDetails.class)
        RedisConnectionResolver.SpringRedisConnection distlockSpringRedisConnection(DataRedisConnectionDetails details) {
            return DataRedisConnections.adapt(details);
        }
    }
}
