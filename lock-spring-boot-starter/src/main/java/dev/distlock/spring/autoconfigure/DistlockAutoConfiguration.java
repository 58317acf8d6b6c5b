package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.internal.config.DistlockStartupException;
import dev.distlock.spring.internal.config.FirstUseSupplier;
import dev.distlock.spring.internal.config.RedLockClients;
import dev.distlock.spring.internal.hold.DistlockShutdown;
import dev.distlock.spring.internal.hold.HoldIndex;
import dev.distlock.spring.internal.hold.LockExecutor;
import dev.distlock.spring.internal.hold.LockObserver;
import dev.distlock.spring.internal.template.DefaultLockTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configures a {@link LockClient} and a {@link LockTemplate} from {@code distlock.*}, connected
 * through a {@link DistlockConnectionDetails} bean.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration"
        })
@ConditionalOnProperty(prefix = "distlock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public final class DistlockAutoConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(DistlockAutoConfiguration.class);

    DistlockAutoConfiguration(Environment environment) {
        // Once per application: a mistyped distlock.* key would otherwise be ignored without a word.
        UnknownPropertiesCheck.warnUnknown(environment, DistlockAutoConfiguration.class.getClassLoader());
    }

    @Bean
    HoldIndex distlockHoldIndex(DistlockProperties properties) {
        return new HoldIndex(properties.getLeaseLostPolicy());
    }

    /**
     * Warns at startup when a key prefix is set and Redisson, on the class path or as a bean, may lock
     * the same names under other keys; see {@link RedissonKeyPrefixCheck} for what is checked.
     */
    @Bean
    SmartInitializingSingleton distlockRedissonKeyPrefixCheck(
            ConfigurableListableBeanFactory beanFactory, DistlockProperties properties) {
        return new RedissonKeyPrefixCheck(beanFactory, properties.getKeyPrefix());
    }

    @Bean
    @ConditionalOnMissingBean(DistlockConnectionDetails.class)
    PropertiesDistlockConnectionDetails distlockConnectionDetails(
            DistlockProperties properties, ObjectProvider<SslBundles> sslBundles, Environment environment) {
        if (!PropertiesDistlockConnectionDetails.isConnectionSet(properties.getRedis())) {
            // Without spring-data-redis nobody adapts spring.data.redis.* for us: read it here rather
            // than fall back to localhost while the application configured another Redis.
            DistlockProperties.Redis boot = SpringDataRedisSettings.bind(environment);
            if (boot != null) {
                return new PropertiesDistlockConnectionDetails(
                        boot, sslBundles.getIfAvailable(), SpringDataRedisSettings.PREFIX);
            }
        }
        return new PropertiesDistlockConnectionDetails(properties.getRedis(), sslBundles.getIfAvailable());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient distlockClient(
            DistlockProperties properties,
            DistlockConnectionDetails connectionDetails,
            HoldIndex holds,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<DistlockClientCustomizer> customizers) {
        // The index first, so that the lease-lost policy applies before the application hears of a loss.
        LockClientOptions.Builder builder = commonOptions(properties).addListener(holds.listener());
        listeners.orderedStream().forEach(builder::addListener);
        DistlockConnections.apply(builder, connectionDetails);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        LockClientOptions options = builder.build();
        logger.info("Distlock connects to {}", ConnectionLog.describe(options, connectionDetails));
        LockClient client = LockClient.create(options);
        if (properties.isFailFast()) {
            checkReachable(client, ConnectionLog.source(connectionDetails));
        }
        return client;
    }

    @Bean(destroyMethod = "close")
    RedLockClients distlockRedLockClients(
            DistlockProperties properties,
            DistlockConnectionDetails connectionDetails,
            HoldIndex holds,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<DistlockClientCustomizer> customizers) {
        List<String> nodes = properties.getRedlock().getNodes();
        List<LockListener> delegates = listeners.orderedStream().toList();
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < nodes.size(); i++) {
                // The same credentials, TLS, client name, listeners and customizers as the main client,
                // so that red holds are reported, measured and policed like the others.
                LockClientOptions.Builder builder =
                        commonOptions(properties).addListener(holds.redLockNodeListener(i, nodes.size()));
                delegates.forEach(builder::addListener);
                DistlockConnections.applyCredentialsAndTls(builder, connectionDetails);
                customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
                builder.uri(nodes.get(i).trim());
                clients.add(LockClient.create(builder.build()));
            }
        } catch (RuntimeException ex) {
            clients.forEach(LockClient::close);
            throw ex;
        }
        RedLockClients redLockClients = new RedLockClients(clients);
        if (properties.isFailFast()) {
            clients.forEach(client -> checkReachable(client, "distlock.redlock.nodes"));
        }
        return redLockClients;
    }

    private static LockClientOptions.Builder commonOptions(DistlockProperties properties) {
        return LockClientOptions.builder()
                .keyPrefix(properties.getKeyPrefix())
                .watchdogTimeout(properties.effectiveWatchdogTimeout())
                .commandTimeout(properties.getRedis().getTimeout())
                .reconnectDelay(
                        properties.getRedis().getReconnect().getMinDelay(),
                        properties.getRedis().getReconnect().getMaxDelay())
                .clientName(properties.getRedis().getClientName());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnSingleCandidate(LockClient.class)
    LockExecutor distlockLockExecutor(
            LockClient client,
            RedLockClients redLockClients,
            HoldIndex holds,
            DistlockProperties properties,
            ObjectProvider<LockObserver> observers) {
        // Resolved on first use, not at construction: the observers' configurations may come later.
        FirstUseSupplier<LockObserver> observer = FirstUseSupplier.of(
                () -> LockObserver.of(observers.orderedStream().toList()));
        return new LockExecutor(
                client,
                redLockClients.clients(),
                holds,
                observer,
                properties.getWatchdog().getMaxHold());
    }

    @Bean
    @ConditionalOnSingleCandidate(LockClient.class)
    DistlockShutdown distlockShutdown(LockExecutor executor, Environment environment) {
        Duration phaseTimeout = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        return new DistlockShutdown(executor, phaseTimeout);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(LockClient.class)
    LockTemplate distlockLockTemplate(LockExecutor executor, DistlockProperties properties) {
        return new DefaultLockTemplate(
                executor,
                properties.getDefaults().getWaitTime(),
                properties.getDefaults().getLeaseTime(),
                properties.lockNameSettings());
    }

    /**
     * Fails startup when Redis does not answer a PING.
     * @param source where the connection settings came from, as the startup log names it
     *     ({@code spring.data.redis.*}, {@code distlock.redis.url}, a bean, ...), so that the
     *     message points at the settings actually used
     */
    private static void checkReachable(LockClient client, String source) {
        try {
            Duration latency = client.ping();
            logger.debug("Redis answered PING in {}", latency);
        } catch (LockException ex) {
            client.close();
            String prefix = source.startsWith("spring.data.redis") ? "spring.data.redis" : "distlock.redis";
            String where = source.startsWith("the default") ? "localhost:6379 (" + source + ")" : source;
            throw new DistlockStartupException(
                    "Redis is unreachable (" + source + ") and distlock.fail-fast=true: " + ex.getMessage(),
                    "Check that Redis runs and is reachable at " + where
                            + ", with the right credentials (" + prefix + ".username, " + prefix + ".password) and TLS "
                            + "settings (" + prefix
                            + ".ssl.*); or set distlock.fail-fast=false to start anyway while the "
                            + "health indicator reports DOWN.",
                    ex);
        }
    }

    /**
     * Uses Spring Boot's Redis connection details when spring-boot-data-redis provides them and no
     * Distlock connection is set in {@code distlock.redis.*}. Registered before the properties-backed
     * details, which then back off.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataRedisConnectionDetails.class)
    @ConditionalOnBean(DataRedisConnectionDetails.class)
    @Conditional(NoDistlockRedisConnectionCondition.class)
    static class DataRedisConnectionDetailsConfiguration {

        @Bean
        @ConditionalOnMissingBean(DistlockConnectionDetails.class)
        DataRedisDistlockConnectionDetails distlockDataRedisConnectionDetails(
                DataRedisConnectionDetails details, Environment environment) {
            return new DataRedisDistlockConnectionDetails(details, bootUrlUsesSsl(details, environment));
        }

        private static boolean bootUrlUsesSsl(DataRedisConnectionDetails details, Environment environment) {
            // Only Boot's properties-backed details come from spring.data.redis.url; a service
            // connection describes its own TLS through its SSL bundle.
            if (!details.getClass().getSimpleName().equals("PropertiesDataRedisConnectionDetails")) {
                return false;
            }
            String url = environment.getProperty("spring.data.redis.url");
            return url != null
                    && url.trim().regionMatches(true, 0, "rediss://", 0, 9)
                    && !"false".equalsIgnoreCase(environment.getProperty("spring.data.redis.ssl.enabled"));
        }
    }

    /** Matches when {@code distlock.redis.*} names no connection (URL, Sentinel master or Cluster nodes). */
    static final class NoDistlockRedisConnectionCondition extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            DistlockProperties.Redis redis = binder.bind("distlock.redis", DistlockProperties.Redis.class)
                    .orElseGet(DistlockProperties.Redis::new);
            return PropertiesDistlockConnectionDetails.isConnectionSet(redis)
                    ? ConditionOutcome.noMatch("a distlock.redis connection is set")
                    : ConditionOutcome.match("no distlock.redis connection is set");
        }
    }
}
