package io.smartssd.examples.weblog;

import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/** Shared helpers: temp dirs, generated files, a device image, and native/tests/wc98.py. */
final class TestData {
    private TestData() {
    }

    static Path tmpDir(String name) throws IOException {
        Path base = Path.of(System.getProperty("smartssd.test.tmp", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name);
    }

    static Path generate(Path dir, String name, long records, int entry, long seed, Wc98Generator.Mix mix)
            throws IOException {
        Path p = dir.resolve(name);
        try (OutputStream os = Files.newOutputStream(p)) {
            new Wc98Generator(seed, mix).writeBinary(os, records, entry, null);
        }
        return p;
    }

    /** A fresh embedded device image of the paper's preset, named {@code id} in the returned conf. */
    static Configuration device(Path dir, String id, long capacity) {
        Path image = dir.resolve(id + ".img");
        SmartSsd.format(image, capacity, "smartssd-paper");
        Configuration conf = WeblogJobs.localConf(2);
        conf.set("fs.smartssd.device." + id + ".image", image.toString());
        return conf;
    }

    static boolean havePython() {
        try {
            return new ProcessBuilder("python3", "--version").start().waitFor(20, TimeUnit.SECONDS)
                    && Files.isRegularFile(wc98py());
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    static Path wc98py() {
        return Path.of(System.getProperty("smartssd.test.wc98py", "../native/tests/wc98.py"));
    }

    /** Runs wc98.py and returns its stdout (an answer in WeblogAnswer's canonical text form). */
    static String wc98(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("python3", wc98py().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("wc98.py " + String.join(" ", args) + " failed: " + err);
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
