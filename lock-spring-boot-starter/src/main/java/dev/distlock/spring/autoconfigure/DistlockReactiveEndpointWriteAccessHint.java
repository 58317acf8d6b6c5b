package dev.distlock.spring.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers a {@code DELETE} on the {@code distlock} endpoint that WebFlux refuses with {@code 405}
 * (force-unlock is off, the endpoint being read-only) with a problem detail naming
 * {@code management.endpoint.distlock.access}, as {@link DistlockEndpointWriteAccessHint} does for
 * Spring MVC. Every other request, and every other exception, is left to the next handler.
 */
final class DistlockReactiveEndpointWriteAccessHint implements WebExceptionHandler, Ordered {

    private final ObjectProvider<PathMappedEndpoints> endpoints;

    DistlockReactiveEndpointWriteAccessHint(ObjectProvider<PathMappedEndpoints> endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (!(ex instanceof MethodNotAllowedException refused)
                || exchange.getRequest().getMethod() != HttpMethod.DELETE
                || exchange.getResponse().isCommitted()
                || !EndpointWriteAccessProblem.isOnEndpoint(endpoints, path)) {
            return Mono.error(ex);
        }
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.METHOD_NOT_ALLOWED);
        if (!refused.getSupportedMethods().isEmpty()) {
            response.getHeaders()
                    .set(
                            HttpHeaders.ALLOW,
                            refused.getSupportedMethods().stream()
                                    .map(HttpMethod::name)
                                    .collect(Collectors.joining(", ")));
        }
        response.getHeaders().setContentType(MediaType.parseMediaType(EndpointWriteAccessProblem.CONTENT_TYPE));
        String instance = exchange.getRequest().getPath().value();
        DataBuffer body = response.bufferFactory()
                .wrap(EndpointWriteAccessProblem.body(instance).getBytes(StandardCharsets.UTF_8));
        return response.writeWith(Mono.just(body));
    }

    @Override
    public int getOrder() {
        // Before Spring Boot's error handler (-1), which would answer the 405 without the hint.
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
