package io.smartssd.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The jars users put on their classpath hold the API and nothing else: no examples, no bench
 * drivers, no test code; each module's classes under its own package. This module builds last, so
 * the other modules' jars are there to look into.
 */
class ShippedJarsTest {
    private static Path jarOf(String module) throws IOException {
        Path target = Paths.get(System.getProperty("smartssd.repo", "..")).resolve(module).resolve("target");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(target, module + "-*.jar")) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (!n.endsWith("-sources.jar") && !n.endsWith("-tests.jar") && !n.contains("benchmarks")) {
                    return p;
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        }
        throw new AssertionError("no " + module + " jar under " + target + ": package the modules first (mvn verify)");
    }

    @ParameterizedTest
    @CsvSource({
        "device-runtime, io/smartssd/device/;io/smartssd/proto/",
        "hadoop-smartssd, io/smartssd/hadoop/",
        "spark-connector, io/smartssd/spark/",
    })
    void onlyTheApi(String module, String packages) throws IOException {
        List<String> allowed = List.of(packages.split(";"));
        List<String> classes = new ArrayList<>();
        try (JarFile jar = new JarFile(jarOf(module).toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class")) {
                    classes.add(name);
                }
            }
        }
        assertFalse(classes.isEmpty(), module);
        for (String c : classes) {
            assertTrue(allowed.stream().anyMatch(c::startsWith), module + " ships " + c + " outside " + allowed);
            assertFalse(c.contains("/examples/") || c.contains("/bench/") || c.endsWith("Test.class"),
                    module + " ships an example, bench or test class: " + c);
        }
    }

    /**
     * The runtime jars are the one jar a user adds: our classes, the native library, the service entries
     * that name the FileSystem (and the data source), and protobuf-java only under our own package, so a
     * cluster's protobuf-java (another version) never meets ours.
     */
    @ParameterizedTest
    @CsvSource({
        "spark-runtime, spark-smartssd-runtime, io/smartssd/spark/;io/smartssd/hadoop/;io/smartssd/device/",
        "hadoop-runtime, hadoop-smartssd-runtime, io/smartssd/hadoop/;io/smartssd/device/",
    })
    void runtimeJarIsWholeAndRelocated(String module, String artifact, String packages) throws IOException {
        Path target = Paths.get(System.getProperty("smartssd.repo", "..")).resolve(module).resolve("target");
        Path jarPath = target.resolve(artifact + "-0.1.0-SNAPSHOT.jar");
        assertTrue(Files.isRegularFile(jarPath), "no " + jarPath + ": package the modules first (mvn verify)");
        List<String> names = new ArrayList<>();
        String services = "";
        String fileSystems = "";
        try (JarFile jar = new JarFile(jarPath.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                names.add(e.nextElement().getName());
            }
            JarEntry ds = jar.getJarEntry("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister");
            if (ds != null) {
                services = new String(jar.getInputStream(ds).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
            JarEntry fs = jar.getJarEntry("META-INF/services/org.apache.hadoop.fs.FileSystem");
            if (fs != null) {
                fileSystems = new String(jar.getInputStream(fs).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        for (String p : packages.split(";")) {
            assertTrue(names.stream().anyMatch(n -> n.startsWith(p) && n.endsWith(".class")), artifact + " lacks " + p);
        }
        assertTrue(names.contains("linux/amd64/libsmartssd_jni.so"), artifact + " lacks the native library");
        assertTrue(names.contains("io/smartssd/shaded/com/google/protobuf/Message.class"),
                artifact + " lacks the relocated protobuf-java");
        for (String n : names) {
            assertFalse(n.startsWith("com/google/protobuf/"), artifact + " ships protobuf-java unrelocated: " + n);
            assertFalse(n.startsWith("org/apache/hadoop/") || n.startsWith("org/apache/spark/")
                    || n.startsWith("org/slf4j/") || n.startsWith("scala/"), artifact + " ships the cluster's " + n);
        }
        assertTrue(fileSystems.contains("io.smartssd.hadoop.fs.SmartSsdFileSystem"), fileSystems);
        assertEquals(module.startsWith("spark"), services.contains("io.smartssd.spark.SmartSsdDataSource"), services);
    }
}
