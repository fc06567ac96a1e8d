package io.smartssd.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * csdd in a container, built from this build's binary on a locally made Debian base image (no registry:
 * bin/docker-engine makes smartssd-base:bookworm with debootstrap and docker import), with no network:
 * its socket lies on a bind-mounted directory, and a DeviceJob (LocalJobRunner) and a Spark scan on
 * this host reach the device through it. Testcontainers' resource reaper is off (it would pull an
 * image; the pom sets TESTCONTAINERS_RYUK_DISABLED): the container is stopped by this test. Without a
 * Docker engine Testcontainers disables the class (JUnit reports it skipped).
 */
@Testcontainers(disabledWithoutDocker = true)
class ContainerDaemonIT {
    static final String BASE = "smartssd-base:bookworm";

    @Test
    void deviceJobAndSparkScanAgainstADaemonInAContainer() throws Exception {
        assumeTrue(DockerClientFactory.instance().client().listImagesCmd().withImageNameFilter(BASE).exec().size() > 0,
                "the Docker engine has no " + BASE + " image: bin/docker-engine makes it (debootstrap + docker import)");
        Path build = Path.of(System.getProperty("smartssd.csdd", "../native/target/build/csdd")).toAbsolutePath()
                .getParent();
        Path ctx = Files.createTempDirectory(TestSpark.localDir(), "csdd-image");
        Files.createDirectories(ctx.resolve("bin"));
        Files.createDirectories(ctx.resolve("lib"));
        for (String tool : List.of("csd", "csdd")) {
            Files.copy(build.resolve(tool), ctx.resolve("bin").resolve(tool), StandardCopyOption.COPY_ATTRIBUTES);
        }
        for (Path lib : ownLibraries(build.resolve("csdd"))) {
            Files.copy(lib, ctx.resolve("lib").resolve(lib.getFileName()));
        }
        ImageFromDockerfile image = new ImageFromDockerfile("smartssd-csdd-it", true)
                .withFileFromPath("bin", ctx.resolve("bin"))
                .withFileFromPath("lib", ctx.resolve("lib"))
                .withDockerfileFromBuilder(b -> b.from(BASE)
                        .copy("bin/", "/usr/local/bin/")
                        .copy("lib/", "/usr/local/lib/smartssd/")
                        .env("LD_LIBRARY_PATH", "/usr/local/lib/smartssd")
                        .build());
        Path run = Files.createTempDirectory(TestSpark.localDir(), "run");
        try (GenericContainer<?> csdd = new GenericContainer<>(image)
                .withNetworkMode("none")
                .withFileSystemBind(run.toString(), "/run/smartssd", BindMode.READ_WRITE)
                .withCommand("sh", "-c", "csd format /data.img --capacity 64M --preset tiny"
                        + " && exec csdd /data.img --socket /run/smartssd/csdd.sock")
                .waitingFor(Wait.forSuccessfulCommand("test -S /run/smartssd/csdd.sock"))
                .withStartupTimeout(Duration.ofMinutes(2))) {
            csdd.start();
            String socket = run.resolve("csdd.sock").toString();

            // inputs written through the FileSystem into the device in the container
            Configuration conf = new Configuration();
            conf.set("mapreduce.framework.name", "local");
            conf.set("fs.smartssd.device.docker.socket", socket);
            put(conf, "smartssd://docker/text.txt", String.join("\n", List.of("a needle", "hay", "needle b", "")));
            StringBuilder csv = new StringBuilder();
            long big = 0;
            for (int i = 0; i < 500; i++) {
                csv.append(i).append(',').append(i % 3 == 0 ? "x" : "y").append('\n');
                big += i > 400 && i % 3 == 0 ? 1 : 0;
            }
            put(conf, "smartssd://docker/t.csv", csv.toString());

            Path out = run.resolve("out");
            DeviceJob job = DeviceJob.counting(conf, "grep in a container", DeviceMapper.tasklet("grep").keyword("needle"),
                    new org.apache.hadoop.fs.Path(out.toUri()), new org.apache.hadoop.fs.Path("smartssd://docker/text.txt"));
            assertTrue(job.waitForCompletion(false));
            assertEquals(List.of("\t2"), Files.readAllLines(out.resolve("part-r-00000")));

            SparkSession spark = SparkSession.builder().master("local[2]").appName("smartssd-container")
                    .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                    .config("spark.hadoop.fs.smartssd.device.docker.socket", socket).getOrCreate();
            try {
                long n = spark.read().format("smartssd").schema("a INT, b STRING").load("smartssd://docker/t.csv")
                        .where("a > 400 AND b = 'x'").count();
                assertEquals(big, n);
                String explain = TestSpark.scan(spark.read().format("smartssd").schema("a INT, b STRING")
                        .load("smartssd://docker/t.csv").where("a > 400")).scan().description();
                assertTrue(explain.contains("PushedFilters: [a IS NOT NULL, a > 400]"), explain);
            } finally {
                spark.stop();
                SparkSession.clearActiveSession();
                SparkSession.clearDefaultSession();
            }
        }
    }

    private static void put(Configuration conf, String uri, String text) throws IOException {
        FileSystem fs = FileSystem.get(URI.create(uri), conf);
        try (OutputStream o = fs.create(new org.apache.hadoop.fs.Path(uri), true)) {
            o.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The libraries the binary links from outside the system's directories (the base image has the rest). */
    private static List<Path> ownLibraries(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ldd", binary.toString()).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), text);
        List<Path> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length >= 3 && w[1].equals("=>") && w[2].startsWith("/") && !w[2].startsWith("/lib")
                    && !w[2].startsWith("/usr/lib")) {
                out.add(Path.of(w[2]).toRealPath());
            }
        }
        return out;
    }
}
