package dev.distlock.spring.autoconfigure;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.util.StringUtils;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a {@code DELETE} on the {@code distlock} endpoint that Spring MVC refuses with
 * {@code 405} (force-unlock is off, the endpoint being read-only) with a problem detail naming
 * {@code management.endpoint.distlock.access}, instead of a bare 405 (WebFlux:
 * {@link DistlockReactiveEndpointWriteAccessHint}). Every other request, and every
 * other exception, is left to the application's resolvers.
 */
final class DistlockEndpointWriteAccessHint implements HandlerExceptionResolver, Ordered {

    private final ObjectProvider<PathMappedEndpoints> endpoints;

    DistlockEndpointWriteAccessHint(ObjectProvider<PathMappedEndpoints> endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public @Nullable ModelAndView resolveException(
            HttpServletRequest request, HttpServletResponse response, @Nullable Object handler, Exception ex) {
        if (!(ex instanceof HttpRequestMethodNotSupportedException refused)
                || !"DELETE".equals(request.getMethod())
                || !onEndpoint(request)) {
            return null;
        }
        try {
            response.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
            String[] allowed = refused.getSupportedMethods();
            if (allowed != null) {
                response.setHeader(HttpHeaders.ALLOW, String.join(", ", allowed));
            }
            response.setContentType(EndpointWriteAccessProblem.CONTENT_TYPE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(EndpointWriteAccessProblem.body(request.getRequestURI()));
            return new ModelAndView();
        } catch (IOException writeFailed) {
            return null;
        }
    }

    private boolean onEndpoint(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        String inApp =
                StringUtils.hasLength(context) && uri.startsWith(context) ? uri.substring(context.length()) : uri;
        return EndpointWriteAccessProblem.isOnEndpoint(endpoints, inApp);
    }

    @Override
    public int getOrder() {
        // Before the application's @ExceptionHandler methods, which see only this endpoint's DELETE here.
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
