package dev.distlock.core.internal.script;

import java.util.List;

/**
 * What a script takes, by the names its header gives them ({@code -- KEYS[1] lock key}).
 *
 * @param script the script
 * @param keys names of its KEYS, in order
 * @param args names of its ARGV, in order
 */
public record ScriptSignature(LuaScript script, List<String> keys, List<String> args) {}
