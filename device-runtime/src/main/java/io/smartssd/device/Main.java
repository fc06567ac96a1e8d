package io.smartssd.device;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The jar's diagnostic entry point: {@code version} (the default) shows that the JNI library loads and
 * where from; {@code format IMAGE CAPACITY [PRESET]} and {@code identify IMAGE} touch a device. Needs
 * picocli on the class path (an optional dependency: the library itself does not use it). Usage errors
 * exit 2, device failures 1.
 */
@Command(name = "device-runtime", mixinStandardHelpOptions = true, versionProvider = Main.NativeVersion.class,
        description = "Diagnostics of the smartssd device-runtime jar: where its JNI library loads from, and a "
            + "device touched through it. Without a command: version.",
        subcommands = {Main.Version.class, Main.Format.class, Main.Identify.class})
public final class Main implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    @Override
    public Integer call() {
        spec.commandLine().getOut().println(versionLine());
        return 0;
    }

    /** The command line wired to out and err. */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println(line.getCommandName() + ": " + ex.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.out, System.err).execute(args));
    }

    static String versionLine() {
        return "smartssd native " + SmartSsd.nativeVersion() + " (loaded from " + NativeLibrary.source() + ")";
    }

    static final class NativeVersion implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {versionLine()};
        }
    }

    @Command(name = "version", mixinStandardHelpOptions = true, versionProvider = NativeVersion.class,
            description = "The C library's version and where it was loaded from.")
    static final class Version implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().getOut().println(versionLine());
            return 0;
        }
    }

    @Command(name = "format", mixinStandardHelpOptions = true, versionProvider = NativeVersion.class,
            description = "Create a device image.")
    static final class Format implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "IMAGE", description = "the image file to create")
        Path image;
        @Parameters(index = "1", paramLabel = "CAPACITY", description = "bytes")
        long capacity;
        @Parameters(index = "2", arity = "0..1", paramLabel = "PRESET", description = "smartssd-paper, tiny, ... (default: the device's)")
        String preset;
        @Option(names = "--param", paramLabel = "KEY=VALUE", description = "a device parameter (repeatable)")
        Map<String, String> params = Map.of();

        @Override
        public Integer call() {
            SmartSsd.format(image, capacity, preset, params);
            spec.commandLine().getOut().println("formatted " + image);
            return 0;
        }
    }

    @Command(name = "identify", mixinStandardHelpOptions = true, versionProvider = NativeVersion.class,
            description = "Open an image and print what the device says it is.")
    static final class Identify implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", paramLabel = "IMAGE")
        Path image;

        @Override
        public Integer call() {
            try (SmartSsd ssd = SmartSsd.openEmbedded(image)) {
                DeviceIdentity id = ssd.identify();
                spec.commandLine().getOut().println(id.model() + " preset=" + id.preset() + " capacity="
                        + id.capacityBytes() + " cores=" + id.cores() + " tasklets=" + id.tasklets());
            }
            return 0;
        }
    }
}
