package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fresh JVMs with only the library jar (the module's classes, packed here as the jar plugin packs
 * them) plus its dependencies on the classpath, no build tree and no LD_LIBRARY_PATH: the JNI library
 * loads from inside the jar.
 */
class JarOnlyTest {
    @TempDir
    static Path tmp;
    static Path jar;
    static String deps;
    static String mainDeps;

    @BeforeAll
    static void packJar() throws IOException {
        Path classes = Path.of(System.getProperty("smartssd.test.classes", "target/classes"));
        assertTrue(Files.isRegularFile(classes.resolve("linux/amd64/libsmartssd_jni.so")),
                "the build copies the JNI library into the classes");
        jar = tmp.resolve("device-runtime.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.smartssd.device.Main");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), mf);
             Stream<Path> files = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace(File.separatorChar, '/')));
                Files.copy(p, out);
                out.closeEntry();
            }
        }
        deps = location(com.google.protobuf.Message.class) + File.pathSeparator + location(org.slf4j.Logger.class);
        mainDeps = deps + File.pathSeparator + location(picocli.CommandLine.class);   // Main's optional dependency
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs java with the given classpath and args; returns {exit code, stdout+stderr}. */
    private static Object[] java(String classpath, List<String> jvmArgs, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(tmp.toFile());
        pb.environment().remove("LD_LIBRARY_PATH");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        p.getOutputStream().close(); // no input
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        return new Object[] {p.exitValue(), new String(out, StandardCharsets.UTF_8)};
    }

    private static String ok(Object[] r) {
        assertEquals(0, r[0], "child JVM failed:\n" + r[1]);
        return (String) r[1];
    }

    @Test
    void theJarAloneLoadsTheLibraryAndRunsADevice() throws Exception {
        String cp = jar + File.pathSeparator + mainDeps;
        String v = ok(java(cp, List.of(), "io.smartssd.device.Main", "version"));
        assertTrue(v.contains("loaded from jar:/linux/amd64/libsmartssd_jni.so"), v);
        Path image = tmp.resolve("jar-only.img");
        ok(java(cp, List.of(), "io.smartssd.device.Main", "format", image.toString(), "8388608", "tiny"));
        String id = ok(java(cp, List.of(), "io.smartssd.device.Main", "identify", image.toString()));
        assertTrue(id.contains("preset=tiny") && id.contains("capacity=8388608"), id);
    }

    @Test
    void thePropertyOverridesTheJarCopy() throws Exception {
        String cp = jar + File.pathSeparator + mainDeps;
        Path lib = Path.of(System.getProperty("smartssd.test.classes", "target/classes"), "linux/amd64/libsmartssd_jni.so");
        String v = ok(java(cp, List.of("-Dsmartssd.native.path=" + lib), "io.smartssd.device.Main", "version"));
        assertTrue(v.contains("loaded from property:" + lib), v);
        Object[] bad = java(cp, List.of("-Dsmartssd.native.path=/nonexistent/libsmartssd_jni.so"),
                "io.smartssd.device.Main", "version");
        assertTrue((int) bad[0] != 0, "a wrong explicit path must fail, not fall back");
        assertTrue(((String) bad[1]).contains("/nonexistent/libsmartssd_jni.so"), (String) bad[1]);
    }

    @Test
    void exitingWithAnOpenHandleKeepsAcknowledgedData() throws Exception {
        String cp = jar + File.pathSeparator + deps + File.pathSeparator + location(JarOnlyTest.class);
        for (String how : List.of("exit", "halt")) {
            Path image = TestDevices.tinyImage(tmp, "open-at-exit-" + how + ".img");
            String out = ok(java(cp, List.of(), "io.smartssd.device.ExitWithOpenHandle", image.toString(), how));
            assertTrue(out.contains("written"), out);
            try (SmartSsd ssd = SmartSsd.openEmbedded(image)) {
                long id;
                try {
                    id = ssd.stat("left-open").info().id();
                } catch (DeviceException e) {
                    throw new AssertionError("after '" + how + "' the object is missing", e);
                }
                byte[] back = TestDevices.get(ssd, id, 0, 100_000);
                assertEquals(100_000, back.length, how);
                for (int i = 0; i < back.length; i++) {
                    assertEquals((byte) (i * 31 + 7), back[i], how + ": byte " + i);
                }
            }
        }
    }
}
