package dev.distlock.spring.autoconfigure;

/** A {@link DistlockConnectionDetails} of the starter's own that can say where its settings came from. */
interface ConnectionSource {

    /**
     * Says where the connection settings came from, for the startup log.
     * @return the properties or bean, or that it is the default
     */
    String source();
}
