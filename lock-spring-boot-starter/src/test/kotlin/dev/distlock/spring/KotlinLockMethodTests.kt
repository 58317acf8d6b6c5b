package dev.distlock.spring

import dev.distlock.core.LockClient
import dev.distlock.core.test.RedisServers
import dev.distlock.spring.autoconfigure.DistlockAspectAutoConfiguration
import dev.distlock.spring.autoconfigure.DistlockAutoConfiguration
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/** Kotlin `suspend` and `Flow` methods hold their lock until the coroutine or the flow completes. */
class KotlinLockMethodTests {

    private val redis = RedisServers.shared()

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration::class.java, DistlockAspectAutoConfiguration::class.java))
        .withPropertyValues("distlock.redis.url=" + redis.uri(), "distlock.defaults.wait-time=20s")
        .withBean(KotlinLockedService::class.java)

    @BeforeEach
    fun flush() {
        redis.command("FLUSHALL")
    }

    @Test
    fun whenSuspendCallsContendThenTheyRunOneAtATimeAndReleaseTheLock() {
        runner.run { context ->
            val service = context.getBean(KotlinLockedService::class.java)
            val results = runBlocking {
                withTimeout(20_000) {
                    listOf("a", "b", "c").map { id -> async { service.work(id, 100) } }.awaitAll()
                }
            }
            assertThat(results).containsExactlyInAnyOrder("a:kt-suspend", "b:kt-suspend", "c:kt-suspend")
            assertThat(service.maxConcurrent()).isEqualTo(1)
            val client = context.getBean(LockClient::class.java)
            assertThat(client.getLock("kt-suspend").isLocked).isFalse()
            assertThat(client.heldLocks()).isEmpty()
        }
    }

    @Test
    fun whenFlowsAreCollectedConcurrentlyThenEachHoldsTheLockUntilItCompletes() {
        runner.run { context ->
            val service = context.getBean(KotlinLockedService::class.java)
            val results = runBlocking {
                withTimeout(20_000) {
                    (1..3).map { async { service.numbers().toList() } }.awaitAll()
                }
            }
            assertThat(results).containsOnly(listOf(1, 2, 3)).hasSize(3)
            assertThat(service.maxConcurrent()).isEqualTo(1)
            val client = context.getBean(LockClient::class.java)
            assertThat(client.getLock("kt-flow").isLocked).isFalse()
            assertThat(client.heldLocks()).isEmpty()
        }
    }
}
