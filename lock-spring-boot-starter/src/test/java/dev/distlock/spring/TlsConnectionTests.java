package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.test.TestCertificates;
import dev.distlock.core.test.TlsRedisServer;
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * TLS against real TLS-only redis-servers that trust only a CA made for this run: {@code rediss://}
 * URLs and SSL bundles (trust and key material) reach the main client and the red-lock nodes.
 * Skipped, with the reason, when the redis-server binary was built without TLS.
 */
class TlsConnectionTests {

    private static TestCertificates certificates;
    private static TlsRedisServer server;
    private static TlsRedisServer mutualServer;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SslAutoConfiguration.class, DataRedisAutoConfiguration.class, DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.redis.timeout=5s");

    @BeforeAll
    static void startServers() {
        certificates = TestCertificates.create();
        server = TlsRedisServer.start(certificates, false);
        mutualServer = TlsRedisServer.start(certificates, true);
    }

    @AfterAll
    static void stopServers() {
        if (server != null) {
            server.stop();
        }
        if (mutualServer != null) {
            mutualServer.stop();
        }
    }

    private static String[] bundle(String prefix, String name, boolean withKey) {
        List<String> properties = new ArrayList<>(
                List.of(prefix + name + ".truststore.certificate=file:" + certificates.caCertificate()));
        if (withKey) {
            properties.add(prefix + name + ".keystore.certificate=file:" + certificates.clientCertificate());
            properties.add(prefix + name + ".keystore.private-key=file:" + certificates.clientKey());
        }
        return properties.toArray(String[]::new);
    }

    private static void assertLocksWork(LockClient client, String name) throws InterruptedException {
        RedisLock lock = client.getLock(name);
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(lock.isLocked()).isTrue();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void whenDistlockUrlIsRedissWithABundleThenLocksWorkOverTls() {
        runner.withPropertyValues(bundle("spring.ssl.bundle.pem.", "redis", false))
                .withPropertyValues("distlock.redis.url=" + server.uri(), "distlock.redis.ssl.bundle=redis")
                .run(context -> assertLocksWork(context.getBean(LockClient.class), "tls-distlock"));
    }

    @Test
    void whenServerRequiresClientCertificatesThenTheBundlesKeyIsPresented() {
        runner.withPropertyValues(bundle("spring.ssl.bundle.pem.", "mutual", true))
                .withPropertyValues(
                        "distlock.redis.url=redis://" + mutualServer.host() + ":" + mutualServer.port(),
                        "distlock.redis.ssl.bundle=mutual")
                .run(context -> assertLocksWork(context.getBean(LockClient.class), "tls-mutual"));
    }

    @Test
    void whenBundleHasNoClientKeyThenTheMutualTlsServerRefuses() {
        runner.withPropertyValues(bundle("spring.ssl.bundle.pem.", "trust-only", false))
                .withPropertyValues(
                        "distlock.redis.url=" + mutualServer.uri(),
                        "distlock.redis.ssl.bundle=trust-only",
                        "distlock.redis.timeout=2s")
                .run(context -> assertThatExceptionOfType(LockException.class)
                        .isThrownBy(() -> context.getBean(LockClient.class).ping()));
    }

    @Test
    void whenRedissWithoutABundleThenTheJvmTrustStoreRejectsThePrivateCa() {
        runner.withPropertyValues("distlock.redis.url=" + server.uri(), "distlock.redis.timeout=2s")
                .run(context -> assertThatExceptionOfType(LockException.class)
                        .isThrownBy(() -> context.getBean(LockClient.class).ping()));
    }

    @Test
    void whenSpringDataRedisUrlIsRedissWithBootsBundleThenABootAppLocksOverMutualTls() throws Exception {
        List<String> properties = new ArrayList<>(List.of(bundle("spring.ssl.bundle.pem.", "boot", true)));
        properties.addAll(List.of(
                "spring.data.redis.url=" + mutualServer.uri(),
                "spring.data.redis.ssl.bundle=boot",
                "distlock.redis.timeout=5s",
                "spring.main.banner-mode=off",
                "management.health.redis.enabled=false",
                "test.lock.name=named",
                "test.lock.region=eu-"));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TestApplication.class)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run()) {
            assertLocksWork(app.getBean(LockClient.class), "tls-boot");
            AtomicBoolean ran = new AtomicBoolean();
            app.getBean(LockTemplate.class).execute("tls-template", () -> ran.set(true));
            assertThat(ran).isTrue();
        }
    }

    @Test
    void whenRedLockNodesAreTlsThenRedLocksUseTheSameBundle() {
        List<TlsRedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(TlsRedisServer.start(certificates, true));
            }
            runner.withPropertyValues(bundle("spring.ssl.bundle.pem.", "red", true))
                    .withPropertyValues(
                            "distlock.redis.url=" + mutualServer.uri(),
                            "distlock.redis.ssl.bundle=red",
                            "distlock.redlock.nodes="
                                    + String.join(
                                            ",",
                                            nodes.stream()
                                                    .map(TlsRedisServer::uri)
                                                    .toList()))
                    .run(context -> {
                        AtomicBoolean ran = new AtomicBoolean();
                        context.getBean(LockTemplate.class)
                                .execute(
                                        "tls-red",
                                        LockOptions.of(LockType.RED).withWaitTime(Duration.ofSeconds(5)),
                                        () -> ran.set(true));
                        assertThat(ran).isTrue();
                    });
        } finally {
            nodes.forEach(TlsRedisServer::stop);
        }
    }
}
