package io.smartssd.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The job jar YARN ships to the containers: the classes of hadoop-smartssd, device-runtime and
 * protobuf-java merged (wherever the build has them: jars, or class directories under `mvn test`).
 */
final class JobJar {
    private JobJar() {
    }

    static Path build(Path jar, Class<?>... from) throws IOException, URISyntaxException {
        Set<String> seen = new HashSet<>();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> c : from) {
                Path src = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
                if (Files.isDirectory(src)) {
                    try (Stream<Path> files = Files.walk(src)) {
                        for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                            String name = src.relativize(f).toString().replace('\\', '/');
                            try (InputStream in = Files.newInputStream(f)) {
                                add(out, seen, name, in);
                            }
                        }
                    }
                } else {
                    try (JarFile jf = new JarFile(src.toFile())) {
                        for (JarEntry e : (Iterable<JarEntry>) jf.stream()::iterator) {
                            if (!e.isDirectory()) {
                                try (InputStream in = jf.getInputStream(e)) {
                                    add(out, seen, e.getName(), in);
                                }
                            }
                        }
                    }
                }
            }
        }
        return jar;
    }

    private static void add(JarOutputStream out, Set<String> seen, String name, InputStream in) throws IOException {
        if (name.equals("META-INF/MANIFEST.MF") || name.matches("META-INF/.*\\.(SF|RSA|DSA)") || !seen.add(name)) {
            return;
        }
        out.putNextEntry(new JarEntry(name));
        in.transferTo(out);
        out.closeEntry();
    }

}
