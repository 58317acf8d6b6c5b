package dev.distlock.samples.web;

import dev.distlock.spring.LockAcquisitionException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the demos' expected failures into readable JSON answers.
 */
@RestControllerAdvice
class DemoErrors {

    @ExceptionHandler(LockAcquisitionException.class)
    ResponseEntity<Map<String, String>> lockNotAcquired(LockAcquisitionException ex) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", String.valueOf(ex.getMessage())));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badArgument(IllegalArgumentException ex) {
        return ResponseEntity.badRequest().body(Map.of("error", String.valueOf(ex.getMessage())));
    }

    @ExceptionHandler(UnsupportedOperationException.class)
    ResponseEntity<Map<String, String>> unsupported(UnsupportedOperationException ex) {
        return ResponseEntity.status(HttpStatus.NOT_IMPLEMENTED).body(Map.of("error", String.valueOf(ex.getMessage())));
    }
}
