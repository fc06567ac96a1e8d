#include <stdio.h>
#include <string.h>

#include "cli.h"

static const subcmd *const CMDS[] = {
    &CMD_FORMAT, &CMD_PUT, &CMD_GET, &CMD_LS, &CMD_RM, &CMD_MV, &CMD_TRIM, &CMD_RUN, &CMD_STATS, &CMD_IDENTIFY, &CMD_CHECK, &CMD_SERVE,
    &CMD_TOP, &CMD_TASKLET, &CMD_REPLAY, &CMD_NBD,
};
#define NCMDS (sizeof CMDS / sizeof CMDS[0])

static void usage(FILE *out, const char *prog) {
    fprintf(out, "usage: %s COMMAND [ARGS] [--json] [--help]\n\n"
                 "The smartssd device tool: format an image, move files in and out, run tasklets.\n\n"
                 "commands:\n", prog);
    for (size_t i = 0; i < NCMDS; i++) fprintf(out, "  %-9s %s\n", CMDS[i]->name, CMDS[i]->summary);
    fprintf(out, "\n'%s COMMAND --help' describes one command. Exit status: 0 ok, 1 device error, 2 usage.\n", prog);
}

int main(int argc, char **argv) {
    cli c = { .prog = "csd" };
    if (argc < 2) {
        usage(stderr, c.prog);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout, c.prog);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("csd %s (protocol %d)\n", csd_version(), CSD_PROTOCOL_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCMDS; i++) {
        if (!strcmp(argv[1], CMDS[i]->name)) {
            int rc = CMDS[i]->run(&c, argc - 1, argv + 1);
            cli_close(&c);
            return rc;
        }
    }
    fprintf(stderr, "%s: unknown command '%s'\n\n", c.prog, argv[1]);
    usage(stderr, c.prog);
    return EXIT_USAGE;
}
