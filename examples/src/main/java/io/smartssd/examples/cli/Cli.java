package io.smartssd.examples.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * What every Java command line of the examples shares (picocli): usage errors print the message and
 * the usage to stderr and exit {@value #USAGE}; a failure while running prints
 * {@code command: message} to stderr (the stack trace too with {@code SMARTSSD_DEBUG} set) and exits
 * {@value #FAILURE}, unless it is an {@link IllegalArgumentException} (a value the parser could not judge
 * by itself, such as a size or an entry size), which is a usage error too.
 */
public final class Cli {
    /** Exit code of a usage error: an unknown option, a missing or malformed argument. */
    public static final int USAGE = CommandLine.ExitCode.USAGE;
    /** Exit code of a failure while running. */
    public static final int FAILURE = CommandLine.ExitCode.SOFTWARE;

    private Cli() {
    }

    /** Wires a command line to out and err with the shared error handling; returns it. */
    public static CommandLine configure(CommandLine cl, PrintStream out, PrintStream err) {
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println(line.getCommandName() + ": " + ex.getMessage());
            if (System.getenv("SMARTSSD_DEBUG") != null) {
                ex.printStackTrace(line.getErr());
            }
            return ex instanceof IllegalArgumentException ? USAGE : FAILURE;
        });
        return cl;
    }

    /** {@code --version}: the examples jar's version (from its manifest), or a development build's. */
    public static final class VersionInfo implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Cli.class.getPackage().getImplementationVersion();
            return new String[] {"smartssd " + (v != null ? v : "(development build)")};
        }
    }
}
