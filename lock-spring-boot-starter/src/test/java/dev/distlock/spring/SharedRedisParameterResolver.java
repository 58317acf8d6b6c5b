package dev.distlock.spring;

import dev.distlock.core.test.RedisServer;
import dev.distlock.core.test.RedisServers;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Hands the fixture's shared Redis to {@link RedisServer} parameters of a {@link DistlockRedisTest}. */
final class SharedRedisParameterResolver implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return RedisServers.shared();
    }
}
