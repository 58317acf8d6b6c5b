package dev.distlock.spring.web;

import dev.distlock.spring.LockAcquisitionException;
import dev.distlock.spring.LockShutdownException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link LockAcquisitionException} thrown in a Spring MVC request with {@code 423 Locked}
 * and an RFC 9457 problem detail naming the lock, and a {@link LockShutdownException} with
 * {@code 503 Service Unavailable}. It has the lowest precedence, so an application's own
 * {@code @ExceptionHandler} for these exceptions in a higher-precedence {@code @ControllerAdvice}
 * wins; defining a bean of this type (a subclass overriding {@link #problem}) replaces it, and
 * {@code distlock.web.problem-details.enabled=false} turns it off.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

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
}
