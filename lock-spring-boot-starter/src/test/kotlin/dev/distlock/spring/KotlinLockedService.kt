package dev.distlock.spring

import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactor.ReactorContext
import kotlin.coroutines.coroutineContext

/** A `suspend` function and a `Flow` function under `@DistributedLock`, counting how many run at once. */
open class KotlinLockedService {

    private val running = AtomicInteger()
    private val maxConcurrent = AtomicInteger()

    /** @return the most lock-method calls that ever ran at once */
    open fun maxConcurrent(): Int = maxConcurrent.get()

    @DistributedLock(name = "kt-suspend")
    open suspend fun work(id: String, pauseMillis: Long): String {
        enter()
        try {
            delay(pauseMillis)
            // Spring AOP runs the coroutine as a Mono in the caller's coroutine context, so the
            // thread-local LockContext is not there; the Reactor context of that Mono is.
            val lock = coroutineContext[ReactorContext]?.context?.getOrEmpty<LockContext>(LockContext::class.java)
                ?.map { it.name() }?.orElse("none") ?: "none"
            return "$id:$lock"
        } finally {
            running.decrementAndGet()
        }
    }

    @DistributedLock(name = "kt-flow")
    open fun numbers(): Flow<Int> = flow {
        enter()
        try {
            for (i in 1..3) {
                delay(20)
                emit(i)
            }
        } finally {
            running.decrementAndGet()
        }
    }

    private fun enter() {
        maxConcurrent.accumulateAndGet(running.incrementAndGet(), Math::max)
    }
}
