package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * {@link DistlockTestRedis#port()}: the server listens on a port of the range asked for, and a value
 * that is not a port or a range, or a range with no free port, fails saying so.
 */
@DistlockTestRedis(port = "24100-24199")
class DistlockTestRedisPortTests {

    @Test
    void whenAPortRangeIsGivenThenTheServerListensOnAPortOfIt(TestRedis redis) {
        assertThat(redis.port()).isBetween(24100, 24199);
        assertThat(redis.command("PING")).isEqualTo("PONG");
        assertThat(TestRedis.shared("24100-24199")).isSameAs(redis);
        assertThat(TestRedis.shared(String.valueOf(redis.port()))).isSameAs(redis);
    }

    @Test
    void whenThePortIsNeitherAPortNorARangeThenTheErrorSaysWhatIsExpected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestRedis.shared("redis"))
                .withMessage("TestRedis.shared(String): port \"redis\" is neither a port nor a range of ports:"
                        + " expected a port (\"6390\") or an inclusive range (\"6390-6399\")");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestRedis.shared("6399-6390"))
                .withMessageContaining("the range starts at 6399, above its end 6390");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestRedis.shared("0-70000"))
                .withMessageContaining("ports run from 1 to 65535");
    }

    @Test
    void whenEveryPortOfTheRangeIsTakenThenTheErrorNamesTheRange() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatIllegalStateException()
                    .isThrownBy(() -> TestRedis.shared(String.valueOf(port)))
                    .withMessageContaining("No free port among port " + port + " on 127.0.0.1 for the test Redis");
        }
    }
}
