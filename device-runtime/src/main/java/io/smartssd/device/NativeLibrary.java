package io.smartssd.device;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads libsmartssd_jni once per JVM, in this order:
 * <ol>
 *   <li>the file named by system property {@value #PATH_PROPERTY}, if set (no fallback then: a wrong
 *       path is an error, not a silent switch to another library);</li>
 *   <li>the copy inside this jar under {@code /<os>/<arch>/}, extracted to a temporary file;</li>
 *   <li>{@code System.loadLibrary("smartssd_jni")} (java.library.path).</li>
 * </ol>
 * A user never sets LD_LIBRARY_PATH: the JNI library carries the whole device statically.
 */
public final class NativeLibrary {
    public static final String PATH_PROPERTY = "smartssd.native.path";
    static final String NAME = "smartssd_jni";
    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);

    private static final Object LOCK = new Object();
    private static volatile String loadedFrom;

    private NativeLibrary() {
    }

    /** Loads the library if it is not loaded yet; throws UnsatisfiedLinkError saying what was tried. */
    public static void load() {
        if (loadedFrom != null) {
            return;
        }
        synchronized (LOCK) {
            if (loadedFrom == null) {
                loadedFrom = doLoad();
                LOG.debug("loaded {} from {}", NAME, loadedFrom);
            }
        }
    }

    /** Where the library came from ("property:PATH", "jar:RESOURCE", "java.library.path"), or null. */
    public static String source() {
        return loadedFrom;
    }

    /** The resource path of the library inside the jar for this platform, e.g. /linux/amd64/libsmartssd_jni.so. */
    public static String resourcePath() {
        return "/" + os() + "/" + arch() + "/" + System.mapLibraryName(NAME);
    }

    private static String doLoad() {
        String explicit = System.getProperty(PATH_PROPERTY);
        if (explicit != null && !explicit.isEmpty()) {
            System.load(Path.of(explicit).toAbsolutePath().toString());
            return "property:" + explicit;
        }
        StringBuilder tried = new StringBuilder();
        String resource = resourcePath();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                tried.append("no resource ").append(resource).append(" in the jar; ");
            } else {
                Path tmp = Files.createTempFile("libsmartssd_jni-", ".so");
                try {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    System.load(tmp.toAbsolutePath().toString());
                    return "jar:" + resource;
                } catch (UnsatisfiedLinkError e) {
                    tried.append("extracted ").append(resource).append(" to ").append(tmp)
                            .append(" but it did not load (").append(e.getMessage()).append("); ");
                } finally {
                    // Once mapped, the file is no longer needed; deleting it now leaves no litter even
                    // if the JVM is killed.
                    Files.deleteIfExists(tmp);
                }
            }
        } catch (IOException e) {
            tried.append("could not extract ").append(resource).append(" (").append(e.getMessage()).append("); ");
        }
        try {
            System.loadLibrary(NAME);
            return "java.library.path";
        } catch (UnsatisfiedLinkError e) {
            tried.append("System.loadLibrary(\"").append(NAME).append("\") failed (").append(e.getMessage())
                    .append(")");
            UnsatisfiedLinkError err = new UnsatisfiedLinkError("cannot load the smartssd JNI library: " + tried
                    + "; set -D" + PATH_PROPERTY + "=/path/to/" + System.mapLibraryName(NAME)
                    + " or use a jar built for this platform");
            err.initCause(e);
            throw err;
        }
    }

    static String os() {
        String name = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (name.startsWith("linux")) {
            return "linux";
        }
        if (name.startsWith("mac") || name.startsWith("darwin")) {
            return "darwin";
        }
        return name.replaceAll("[^a-z0-9]", "");
    }

    static String arch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
                return "amd64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return arch.replaceAll("[^a-z0-9]", "");
        }
    }
}
