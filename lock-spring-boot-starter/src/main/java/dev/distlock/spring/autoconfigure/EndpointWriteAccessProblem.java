package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;

/**
 * The problem detail of a {@code DELETE} refused by the read-only {@code distlock} endpoint, the
 * same for Spring MVC ({@link DistlockEndpointWriteAccessHint}) and WebFlux
 * ({@link DistlockReactiveEndpointWriteAccessHint}). Free of web types, so that either stack loads
 * it without the other.
 */
final class EndpointWriteAccessProblem {

    static final String PROPERTY = "management.endpoint.distlock.access";

    static final String CONTENT_TYPE = "application/problem+json";

    private EndpointWriteAccessProblem() {}

    /**
     * Tells whether a path within the application is the endpoint's or one of its selectors'.
     * @param endpoints the mapped endpoints, absent when the endpoint is not exposed over the web
     * @param pathWithinApplication the request path, without the context path
     */
    static boolean isOnEndpoint(ObjectProvider<PathMappedEndpoints> endpoints, String pathWithinApplication) {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        @Nullable String path = mapped != null ? mapped.getPath(EndpointId.of("distlock")) : null;
        return path != null && (pathWithinApplication.equals(path) || pathWithinApplication.startsWith(path + "/"));
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
}
