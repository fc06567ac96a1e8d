package io.smartssd.device;

import java.nio.file.Path;
import java.util.Map;

/**
 * A small diagnostic entry point of the jar: {@code java -jar device-runtime.jar version} shows that
 * the JNI library loads and where from; {@code format IMAGE CAPACITY [PRESET]} and {@code identify IMAGE}
 * touch a device.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        String cmd = args.length == 0 ? "version" : args[0];
        switch (cmd) {
            case "version":
                System.out.println("smartssd native " + SmartSsd.nativeVersion() + " (loaded from "
                        + NativeLibrary.source() + ")");
                break;
            case "format":
                if (args.length < 3) {
                    usage();
                }
                SmartSsd.format(Path.of(args[1]), Long.parseLong(args[2]), args.length > 3 ? args[3] : null,
                        Map.of());
                System.out.println("formatted " + args[1]);
                break;
            case "identify":
                if (args.length < 2) {
                    usage();
                }
                try (SmartSsd ssd = SmartSsd.openEmbedded(Path.of(args[1]))) {
                    DeviceIdentity id = ssd.identify();
                    System.out.println(id.model() + " preset=" + id.preset() + " capacity=" + id.capacityBytes()
                            + " cores=" + id.cores() + " tasklets=" + id.tasklets());
                }
                break;
            default:
                usage();
        }
    }

    private static void usage() {
        System.err.println("usage: java -jar device-runtime.jar [version | format IMAGE CAPACITY [PRESET] | identify IMAGE]");
        System.exit(2);
    }
}
