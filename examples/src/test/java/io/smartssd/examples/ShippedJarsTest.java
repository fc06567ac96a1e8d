package io.smartssd.examples;

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
}
