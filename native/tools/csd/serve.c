/* serve: the device daemon (csdd) — one image on a Unix socket until SIGTERM/SIGINT. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "transport/server.h"

/* The signal handler can only reach the server through a static. */
static csd_server *g_server;

static void on_signal(int sig) {
    (void)sig;
    if (g_server) csd_server_stop(g_server);
}

typedef struct serve_opts {
    const char *socket;
} serve_opts;

static int serve_opt(cli *c, int opt, const char *arg, void *a) {
    if (opt == 's') {
        ((serve_opts *)a)->socket = arg;
        return 0;
    }
    return -1;
}

int csd_serve_main(cli *c, int argc, char **argv, const subcmd *self) {
    static const struct option extra[] = { { "socket", required_argument, 0, 's' } };
    serve_opts o = { 0 };
    char *pos[1];
    int np, rc = cli_parse(c, self, argc, argv, extra, 1, serve_opt, &o, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    if (!o.socket) return cli_usage_error(c, self, "--socket PATH is required");
    if ((rc = cli_open_background(c, pos[0]))) return rc;
    char err[512];
    if (csd_server_create(&g_server, c->dev, o.socket, err, sizeof err))
        return cli_error(c, "INVALID_ARGUMENT", "%s", err);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "csdd: serving %s on %s (pid %d)\n", pos[0], o.socket, (int)getpid());
    csd_server_run(g_server);
    csd_server_destroy(g_server);
    g_server = NULL;
    /* Closing the device flushes its metadata; a restart serves the same data. */
    cli_close(c);
    fprintf(stderr, "csdd: stopped cleanly\n");
    return 0;
}

static int run_serve(cli *c, int argc, char **argv) { return csd_serve_main(c, argc, argv, &CMD_SERVE); }

const subcmd CMD_SERVE = {
    "serve", "IMAGE --socket PATH", "serve the device on a Unix domain socket (the csdd daemon)", run_serve,
    "options:\n"
    "  --socket PATH        socket to create (mode 0600; an existing path must be this user's stale socket)\n"
    "Stops cleanly on SIGTERM or SIGINT, flushing metadata.\n",
};
