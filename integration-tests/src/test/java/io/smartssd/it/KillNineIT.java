package io.smartssd.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * kill -9 under real clients, the short version (the long one: {@code bin/smartssd bench killsoak}, 100
 * kills): a Hadoop job writing its output through a csdd daemon, a Spark job reading through it and a
 * writer overwriting a ring of self-describing records, while the daemon is SIGKILLed and restarted 4 times. bench/killsoak.py
 * asserts that {@code csd check} is clean after every kill, that no acknowledged byte and no committed
 * job output is lost, that every failed job failed with an error naming the daemon and was run again,
 * and that every answer equals the run made before the first kill; this test holds it to its exit code
 * and its verdict.
 */
class KillNineIT {
    @Test
    void hadoopAndSparkJobsSurviveADaemonKilledFourTimes() throws Exception {
        Path repo = Path.of(System.getProperty("smartssd.repo", "..")).toAbsolutePath().normalize();
        Path log = Files.createTempFile("killsoak", ".log");
        Process p = new ProcessBuilder(repo.resolve("bin/smartssd").toString(), "bench", "killsoak", "--kills", "4",
                "--gap", "3,12", "--records", "20000").directory(repo.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(20, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("the kill soak did not finish within 20 minutes; see " + log);
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("killsoak: every kill clean, nothing acknowledged lost, every answer equal to the"
                + " run without kills"), out);
        for (int k = 1; k <= 4; k++) {
            assertTrue(out.contains("kill " + k + "/4: check clean"), out);
        }
    }
}
