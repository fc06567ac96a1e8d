package io.smartssd.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The daemon built from the repository's own Dockerfile, and a DeviceJob (LocalJobRunner) against it
 * through a socket on a shared bind mount. Where there is no Docker engine (as on the build machine),
 * Testcontainers disables the class and JUnit reports it skipped.
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerDaemonIT {
    @Test
    void deviceJobAgainstTheContainerisedDaemon() throws Exception {
        Path repo = Path.of(System.getProperty("smartssd.repo", "..")).toAbsolutePath().normalize();
        Path run = Files.createTempDirectory("smartssd-docker");
        run.toFile().setWritable(true, false);
        ImageFromDockerfile image = new ImageFromDockerfile("smartssd-csdd-it", false)
                .withFileFromPath("Dockerfile", repo.resolve("Dockerfile"))
                .withFileFromPath("proto", repo.resolve("proto"))
                .withFileFromPath("native", repo.resolve("native"));
        try (GenericContainer<?> csdd = new GenericContainer<>(image)
                .withEnv("CSD_CAPACITY", "64M").withEnv("CSD_PRESET", "tiny")
                .withFileSystemBind(run.toString(), "/run/smartssd", BindMode.READ_WRITE)
                .waitingFor(Wait.forSuccessfulCommand("test -S /run/smartssd/csdd.sock"))
                .withStartupTimeout(Duration.ofMinutes(5))) {
            csdd.start();
            Configuration conf = new Configuration();
            conf.set("mapreduce.framework.name", "local");
            conf.set("fs.smartssd.device.docker.socket", run.resolve("csdd.sock").toString());
            String input = "smartssd://docker/text.txt";
            FileSystem fs = FileSystem.get(URI.create(input), conf);
            try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(input), true)) {
                out.write(String.join("\n", List.of("a needle", "hay", "needle b", "")).getBytes(StandardCharsets.UTF_8));
            }
            Path out = run.resolve("out");
            DeviceJob job = DeviceJob.counting(conf, "grep in docker", DeviceMapper.tasklet("grep").keyword("needle"),
                    new org.apache.hadoop.fs.Path(out.toUri()), new org.apache.hadoop.fs.Path(input));
            assertTrue(job.waitForCompletion(false));
            assertEquals(List.of("\t2"), Files.readAllLines(out.resolve("part-r-00000")));
        }
    }
}
