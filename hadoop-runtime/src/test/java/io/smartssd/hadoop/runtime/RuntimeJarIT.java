package io.smartssd.hadoop.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.SmartSsd;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * hadoop-smartssd-runtime is the one jar a Hadoop user adds: JVMs whose classpath is Hadoop's client
 * jars and that jar (as HADOOP_CLASSPATH puts it there; -libjars names it for the tasks) run FsShell on
 * smartssd:// and a DeviceJob, with no other jar of ours and no protobuf-java.
 */
class RuntimeJarIT {
    private static final Path REPO = Path.of(System.getProperty("smartssd.repo", "..")).toAbsolutePath().normalize();
    private static final Path JAR = Path.of(System.getProperty("smartssd.runtime.jar"));

    /**
     * A Hadoop client's classpath: its configuration directory (an empty core-site.xml, which Hadoop's
     * tools insist on), Hadoop's client jars and what they need from this test's classpath (none of ours, no
     * protobuf-java), the user's driver, and the runtime jar.
     */
    private static String classpath(Path dir) throws IOException {
        List<String> cp = new ArrayList<>();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("core-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n</configuration>\n");
        cp.add(conf.toString());
        Path testClasses = Path.of(RuntimeJarDriver.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e).toAbsolutePath().normalize();
            if (p.startsWith(REPO) || p.getFileName().toString().startsWith("protobuf-java")) {
                continue;
            }
            cp.add(p.toString());
        }
        assertTrue(cp.stream().anyMatch(e -> e.contains("hadoop-client-api")), cp.toString());
        cp.add(testClasses.toString());
        cp.add(JAR.toString());
        return String.join(File.pathSeparator, cp);
    }

    private static String run(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "--add-opens=java.base/java.lang=ALL-UNNAMED", "-cp", classpath(dir)));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("child-" + System.nanoTime() + ".log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "timed out: " + cmd);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
        return out;
    }

    @Test
    void deviceJobAndFsShellWithTheRuntimeJarAlone() throws Exception {
        assertTrue(Files.isRegularFile(JAR), JAR + ": package the module first");
        Path dir = Files.createDirectories(Path.of(System.getProperty("smartssd.test.tmp", "target/test-tmp"))
                .toAbsolutePath().resolve("runtime-jar-" + System.nanoTime()));
        Path image = dir.resolve("dev.img");
        SmartSsd.format(image, 64L << 20, "tiny");
        String device = "-Dfs.smartssd.device.d0.image=" + image;
        Path out = dir.resolve("out");
        run(dir, RuntimeJarDriver.class.getName(), device, "-libjars", JAR.toString(), out.toUri().toString());
        assertEquals(List.of("\t3"), Files.readAllLines(out.resolve("part-r-00000")));
        String ls = run(dir, "org.apache.hadoop.fs.FsShell", device, "-ls", "smartssd://d0/");
        assertTrue(ls.contains("smartssd://d0/in.txt"), ls);
    }
}
