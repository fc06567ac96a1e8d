/* serve: the device daemon (csdd) — one image on a Unix socket until SIGTERM/SIGINT. */
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
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
    csd_server_opts srv;
    const char *bad;         /* the option value refused, for the usage error */
} serve_opts;

/* --allow UID|USER[,UID|USER...]: numeric uids or user names */
static int add_allow(serve_opts *o, const char *list) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long uid = strtoul(t, &end, 10);
        if (*t && !*end && uid <= 0xfffffffeul) {
            /* a number */
        } else {
            struct passwd *pw = getpwnam(t);
            if (!pw) return -1;
            uid = pw->pw_uid;
        }
        if (o->srv.n_allow == CSD_SERVER_MAX_ALLOW) return -1;
        o->srv.allow_uids[o->srv.n_allow++] = (uint32_t)uid;
    }
    return 0;
}

static int serve_opt(cli *c, int opt, const char *arg, void *a) {
    serve_opts *o = a;
    char *end;
    switch (opt) {
    case 's': o->socket = arg; return 0;
    case 'A':
        if (add_allow(o, arg)) o->bad = arg;
        return 0;
    case 'M': {
        unsigned long n = strtoul(arg, &end, 10);
        if (!*arg || *end || n < 1 || n > 65536) o->bad = arg;
        else o->srv.max_clients = (uint32_t)n;
        return 0;
    }
    }
    return -1;
}

int csd_serve_main(cli *c, int argc, char **argv, const subcmd *self) {
    static const struct option extra[] = { { "socket", required_argument, 0, 's' },
                                           { "allow", required_argument, 0, 'A' },
                                           { "max-clients", required_argument, 0, 'M' } };
    serve_opts o = { 0 };
    char *pos[1];
    int np, rc = cli_parse(c, self, argc, argv, extra, 3, serve_opt, &o, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    if (!o.socket) return cli_usage_error(c, self, "--socket PATH is required");
    if (o.bad)
        return cli_usage_error(c, self, "'%s': --allow takes uids or user names (at most %d), --max-clients 1..65536",
                               o.bad, CSD_SERVER_MAX_ALLOW);
    if ((rc = cli_open_background(c, pos[0]))) return rc;
    char err[512];
    if (csd_server_create_opts(&g_server, c->dev, o.socket, &o.srv, err, sizeof err))
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
    "  --allow UID|USER,..  serve these uids too (checked with SO_PEERCRED; the socket becomes 0666);\n"
    "                       the daemon's own uid and root are always served, anyone else is refused\n"
    "  --max-clients N      connections served at once (default 1024; one more is refused)\n"
    "Dead clients' tasklet and output objects are reclaimed after orphan_timeout_ms (--set).\n"
    "Stops cleanly on SIGTERM or SIGINT, flushing metadata.\n",
};
