/* csdd: the smartssd device daemon. Same as `csd serve`. */
#include <stdio.h>
#include <string.h>

#include "../csd/cli.h"

int csd_serve_main(cli *c, int argc, char **argv, const subcmd *self);

static int run(cli *c, int argc, char **argv);
static const subcmd CSDD = {
    "csdd", "IMAGE --socket PATH", "the smartssd device daemon: serve IMAGE on a Unix domain socket", run,
    "options:\n"
    "  --socket PATH        socket to create (mode 0600; an existing path must be this user's stale socket)\n"
    "  --allow UID|USER,..  serve these uids too (checked with SO_PEERCRED; the socket becomes 0666);\n"
    "                       the daemon's own uid and root are always served, anyone else is refused\n"
    "  --max-clients N      connections served at once (default 1024; one more is refused)\n"
    "Dead clients' tasklet and output objects are reclaimed after orphan_timeout_ms (--set).\n"
    "Stops cleanly on SIGTERM or SIGINT, flushing metadata.\n",
};
static int run(cli *c, int argc, char **argv) { return csd_serve_main(c, argc, argv, &CSDD); }

int main(int argc, char **argv) {
    cli c = { .prog = "csdd" };
    int rc = CSDD.run(&c, argc, argv);
    cli_close(&c);
    return rc;
}
