package dev.distlock.spring.autoconfigure;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
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
 * {@code management.endpoint.distlock.access}, instead of a bare 405. Every other request, and every
 * other exception, is left to the application's resolvers.
 */
final class DistlockEndpointWriteAccessHint implements HandlerExceptionResolver, Ordered {

    static final String PROPERTY = "management.endpoint.distlock.access";

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
            response.setContentType("application/problem+json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(body(request.getRequestURI()));
            return new ModelAndView();
        } catch (IOException writeFailed) {
            return null;
        }
    }

    private boolean onEndpoint(HttpServletRequest request) {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        String path = mapped != null ? mapped.getPath(EndpointId.of("distlock")) : null;
        if (path == null) {
            return false;
        }
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        String inApp =
                StringUtils.hasLength(context) && uri.startsWith(context) ? uri.substring(context.length()) : uri;
        return inApp.equals(path) || inApp.startsWith(path + "/");
    }

    static String body(String instance) {
        return "{\"type\":\"about:blank\",\"title\":\"Method Not Allowed\",\"status\":405,"
                + "\"detail\":\"Force-unlock (DELETE) is off: the distlock endpoint is read-only. Set " + PROPERTY
                + "=unrestricted on this instance to allow it.\",\"instance\":\"" + json(instance) + "\"}";
    }

    private static String json(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    @Override
    public int getOrder() {
        // Before the application's @ExceptionHandler methods, which see only this endpoint's DELETE here.
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
