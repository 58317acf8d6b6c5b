package dev.distlock.spring.web;

import dev.distlock.core.LockException;
import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockLeaseExpiredException;
import dev.distlock.spring.LockShutdownException;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers lock failures thrown in a Spring MVC or WebFlux request with RFC 9457 problem details:
 * a {@link LockAcquisitionException} (the lock is taken) with {@code 423 Locked} naming the lock, a
 * {@link LockShutdownException} with {@code 503 Service Unavailable}, a
 * {@link LockLeaseExpiredException} (the method ran, but its lease was lost while it ran) with
 * {@code 409 Conflict} and the type {@value #LEASE_LOST_TYPE}, and any other {@link LockException}
 * (Redis unreachable, a command timed out, the client closed) with {@code 503 Service Unavailable},
 * logged at WARN with its message; that reply does not show the message, which names the Redis
 * server, to the caller. It has the lowest precedence, so an application's own
 * {@code @ExceptionHandler} for these exceptions in a higher-precedence {@code @ControllerAdvice}
 * wins; defining a bean of this type (a subclass overriding {@link #problem}, {@link #leaseLost} or
 * {@link #unavailable}) replaces it, and {@code distlock.web.problem-details.enabled=false} turns it
 * off.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

    /** The problem type of a method that ran but lost its lock's lease while it ran. */
    public static final String LEASE_LOST_TYPE = "urn:distlock:problem:lease-lost";

    private static final Logger logger = LoggerFactory.getLogger(LockExceptionHandler.class);

    /**
     * Handles a lock that could not be acquired.
     * @param ex the exception
     * @return the problem detail response
     */
    @ExceptionHandler(LockAcquisitionException.class)
    public ResponseEntity<ProblemDetail> handleLockAcquisition(LockAcquisitionException ex) {
        ProblemDetail problem = problem(ex);
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    /**
     * Handles a method that ran but lost its lock's lease while it ran
     * ({@code distlock.lease-lost-policy=throw}).
     * @param ex the exception
     * @return the problem detail response
     */
    @ExceptionHandler(LockLeaseExpiredException.class)
    public ResponseEntity<ProblemDetail> handleLeaseLost(LockLeaseExpiredException ex) {
        logger.warn("Answering 409: {}", ex.getMessage());
        ProblemDetail problem = leaseLost(ex);
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    /**
     * Handles a lock operation that failed because Redis could not serve it.
     * @param ex the exception
     * @return the problem detail response
     */
    @ExceptionHandler(LockException.class)
    public ResponseEntity<ProblemDetail> handleRedisUnavailable(LockException ex) {
        logger.warn("Answering 503: {}", ex.getMessage());
        ProblemDetail problem = unavailable(ex);
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }

    /**
     * Builds the problem detail of an exception.
     * @param ex the exception
     * @return the problem detail, whose status is the response's
     */
    protected ProblemDetail problem(LockAcquisitionException ex) {
        boolean shutdown = ex instanceof LockShutdownException;
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                shutdown ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.LOCKED, ex.getMessage());
        problem.setTitle(shutdown ? "Shutting down" : "Locked");
        problem.setProperty("lock", ex.getLockName());
        return problem;
    }

    /**
     * Builds the problem detail of a method that ran but lost its lock's lease while it ran. Its
     * status is {@code 409 Conflict} rather than a {@code 5xx}: the work was done, possibly while
     * another process did the same, so a client must check the outcome rather than retry blindly,
     * and HTTP clients and gateways retry {@code 502}, {@code 503} and {@code 504} (often {@code 500})
     * on their own, but not {@code 409}.
     * @param ex the exception
     * @return the problem detail, whose status is the response's
     */
    protected ProblemDetail leaseLost(LockLeaseExpiredException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT,
                "The request ran without the lock for part of its run: the lock's lease was lost while"
                        + " it ran, so another process may have done the same work at the same time."
                        + " Check the outcome before trying again.");
        problem.setType(URI.create(LEASE_LOST_TYPE));
        problem.setTitle("Lock lease lost");
        problem.setProperty("lock", ex.getLockName());
        return problem;
    }

    /**
     * Builds the problem detail of a lock operation that Redis could not serve.
     * @param ex the exception
     * @return the problem detail, whose status is the response's
     */
    protected ProblemDetail unavailable(LockException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE,
                "The lock store (Redis) could not be reached in time; the request did not run. Try again later.");
        problem.setTitle("Lock store unavailable");
        return problem;
    }
}
