/* nbd: the device's block namespace as an NBD export, served by nbdkit with the smartssd plugin
 * (native/nbd/). Given a daemon's socket, nbdkit takes this process's place; given an image, this
 * process opens the device (with --set, --config, --trace), serves it on a private csdd socket and
 * runs nbdkit as its child until nbdkit ends, then closes the device cleanly. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "smartssd/block.h"
#include "transport/server.h"

#define PLUGIN_FILE "nbdkit-smartssd-plugin.so"

typedef struct nbd_opts {
    const char *socket, *unix_path, *port, *run, *log, *retry, *threads, *refill;
    int readonly, unaligned;
    const char *bad;
} nbd_opts;

static int nbd_opt(cli *c, int opt, const char *arg, void *a) {
    nbd_opts *o = a;
    char *end;
    switch (opt) {
    case 's': o->socket = arg; return 0;
    case 'U': o->unix_path = arg; return 0;
    case 'P': {
        unsigned long p = strtoul(arg, &end, 10);
        if (!*arg || *end || p < 1 || p > 65535) o->bad = arg;
        o->port = arg;
        return 0;
    }
    case 'R': o->run = arg; return 0;
    case 'L': o->log = arg; return 0;
    case 'r': o->readonly = 1; return 0;
    case 'u': o->unaligned = 1; return 0;
    case 'W': {
        double s = strtod(arg, &end);
        if (!*arg || *end || !(s >= 0 && s <= 86400)) o->bad = arg;
        o->retry = arg;
        return 0;
    }
    case 'F': {
        double us = strtod(arg, &end);
        if (!*arg || *end || !(us >= 0 && us <= 1e6)) o->bad = arg;
        o->refill = arg;
        return 0;
    }
    case 't': {
        unsigned long n = strtoul(arg, &end, 10);
        if (!*arg || *end || n < 1 || n > 1024) o->bad = arg;
        o->threads = arg;
        return 0;
    }
    }
    return -1;
}

/* The plugin beside this executable (the build tree), or $CSD_NBD_PLUGIN. */
static int find_plugin(char *out, size_t cap) {
    const char *env = getenv("CSD_NBD_PLUGIN");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return access(out, R_OK) ? -1 : 0;
    }
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return -1;
    exe[k] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    int w = snprintf(out, cap, "%s/" PLUGIN_FILE, exe);
    return w < 0 || (size_t)w >= cap || access(out, R_OK) ? -1 : 0;
}

static int on_path(const char *prog) {
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    if (!path) path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
        if (n && !access(buf, X_OK)) return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* A socket left by an nbdkit that was killed stops the next from binding: remove it when it is this
 * user's socket and nobody listens on it; anything else stays (nbdkit then says why). */
static void clear_stale(const char *path) {
    struct stat st;
    if (lstat(path, &st) || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) return;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) return;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) && errno == ECONNREFUSED) unlink(path);
    close(fd);
}

/* nbdkit's command line: where it listens, the plugin and its parameters. */
typedef struct argvec {
    char *v[40];
    int n;
    char buf[4][PATH_MAX + 16];
} argvec;

static void build_argv(argvec *a, const nbd_opts *o, const char *plugin, const char *sock, int child) {
    a->n = 0;
    a->v[a->n++] = "nbdkit";
    a->v[a->n++] = "--foreground";
    if (child) a->v[a->n++] = "--exit-with-parent";   /* and if this process dies, so does nbdkit */
    a->v[a->n++] = "--threads";
    a->v[a->n++] = (char *)(o->threads ? o->threads : "64");
    if (o->readonly) a->v[a->n++] = "--readonly";
    if (o->port) {
        a->v[a->n++] = "--port";
        a->v[a->n++] = (char *)o->port;
        a->v[a->n++] = "--ipaddr";
        a->v[a->n++] = "127.0.0.1";   /* loopback only */
    } else {
        a->v[a->n++] = "--unix";
        a->v[a->n++] = (char *)(o->unix_path ? o->unix_path : "-");
    }
    if (o->run) {
        a->v[a->n++] = "--run";
        a->v[a->n++] = (char *)o->run;
    }
    /* read-modify-write of the pages around an unaligned request, in nbdkit */
    if (o->unaligned) a->v[a->n++] = "--filter=blocksize";
    a->v[a->n++] = (char *)plugin;
    snprintf(a->buf[0], sizeof a->buf[0], "socket=%s", sock);
    a->v[a->n++] = a->buf[0];
    if (o->log) {
        snprintf(a->buf[1], sizeof a->buf[1], "log=%s", o->log);
        a->v[a->n++] = a->buf[1];
    }
    if (o->retry) {
        snprintf(a->buf[2], sizeof a->buf[2], "retry=%s", o->retry);
        a->v[a->n++] = a->buf[2];
    }
    if (o->refill) {
        snprintf(a->buf[3], sizeof a->buf[3], "refill_us=%s", o->refill);
        a->v[a->n++] = a->buf[3];
    }
    a->v[a->n] = NULL;
}

static void say_where(const nbd_opts *o, const char *what) {
    if (o->run) return;
    if (o->port) fprintf(stderr, "csd nbd: serving %s at nbd://127.0.0.1:%s (stop with Ctrl-C)\n", what, o->port);
    else fprintf(stderr, "csd nbd: serving %s at nbd+unix:///?socket=%s (stop with Ctrl-C)\n", what, o->unix_path);
}

static volatile sig_atomic_t g_child, g_signals;
/* The first Ctrl-C or SIGTERM goes to nbdkit, which stops once its clients have left; a second one
 * stops it at once (requests in service are dropped; the device still closes cleanly). */
static void forward(int sig) {
    if (g_child > 0) kill((pid_t)g_child, g_signals++ ? SIGKILL : sig);
}

static void *serve_thread(void *arg) {
    csd_server_run(arg);
    return NULL;
}

/* The image in this process on a private csdd socket, nbdkit as the child. */
static int run_image(cli *c, const nbd_opts *o, const char *image, const char *plugin) {
    int rc = cli_open_background(c, image);
    if (rc) return rc;
    char err[512];
    csd_block_info bi;
    if (csd_block_info_get(c->dev, &bi, err, sizeof err)) return cli_error(c, "IO_ERROR", "%s: %s", image, err);
    char dir[] = "/tmp/csd-nbd.XXXXXX", sock[sizeof dir + 16];
    if (!mkdtemp(dir)) return cli_error(c, "IO_ERROR", "mkdtemp: %s", strerror(errno));
    snprintf(sock, sizeof sock, "%s/csdd.sock", dir);
    csd_server *srv;
    if (csd_server_create(&srv, c->dev, sock, err, sizeof err)) {
        rmdir(dir);
        return cli_error(c, "IO_ERROR", "%s", err);
    }
    pthread_t th;
    if (pthread_create(&th, NULL, serve_thread, srv)) {
        csd_server_destroy(srv);
        rmdir(dir);
        return cli_error(c, "RESOURCE_EXHAUSTED", "cannot start the server thread");
    }
    argvec a;
    build_argv(&a, o, plugin, sock, 1);
    char what[PATH_MAX + 100];
    snprintf(what, sizeof what, "%s (%" PRIu64 " LBAs of %u bytes)", image, bi.lbas, bi.lba_bytes);
    say_where(o, what);
    fflush(NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0) {
        execvp("nbdkit", a.v);
        fprintf(stderr, "csd nbd: cannot run nbdkit: %s\n", strerror(errno));
        _exit(127);
    }
    int status = 0, out;
    if (pid < 0) {
        out = cli_error(c, "RESOURCE_EXHAUSTED", "fork: %s", strerror(errno));
    } else {
        g_child = pid;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        g_child = 0;
        out = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    csd_server_stop(srv);
    pthread_join(th, NULL);
    csd_server_destroy(srv);
    rmdir(dir);
    /* closing the device flushes its metadata (and writes --trace) */
    cli_close(c);
    return out;
}

static int nbd_main(cli *c, int argc, char **argv, const subcmd *self) {
    static const struct option extra[] = {
        { "socket", required_argument, 0, 's' }, { "unix", required_argument, 0, 'U' },
        { "port", required_argument, 0, 'P' },   { "run", required_argument, 0, 'R' },
        { "latency-csv", required_argument, 0, 'L' }, { "read-only", no_argument, 0, 'r' },
        { "retry", required_argument, 0, 'W' },  { "threads", required_argument, 0, 't' },
        { "unaligned", no_argument, 0, 'u' },    { "refill-us", required_argument, 0, 'F' },
    };
    nbd_opts o = { 0 };
    char *pos[1] = { 0 };
    int np, rc = cli_parse(c, self, argc, argv, extra, sizeof extra / sizeof extra[0], nbd_opt, &o, pos, 0, 1, &np);
    if (rc >= 0) return rc;
    if (o.bad)
        return cli_usage_error(c, self, "'%s': --port takes 1..65535, --threads 1..1024, --retry 0..86400 seconds, "
                               "--refill-us 0..1000000",
                               o.bad);
    struct stat st;
    if (np && !stat(pos[0], &st) && S_ISSOCK(st.st_mode) && !o.socket) o.socket = pos[0], np = 0;
    if (!np == !o.socket) return cli_usage_error(c, self, "give an IMAGE or --socket PATH (one of them)");
    if (o.port && o.unix_path) return cli_usage_error(c, self, "--unix and --port: give one");
    if (!o.port && !o.unix_path && !o.run)
        return cli_usage_error(c, self, "where should clients connect? --unix PATH, --port N, or --run CMD");
    if (o.socket && (c->nsets || c->config))
        return cli_usage_error(c, self, "--set, --config and --trace apply to an image; %s is a daemon's socket "
                               "(give them to 'csd serve')", o.socket);
    char plugin[PATH_MAX], log_abs[PATH_MAX];
    if (find_plugin(plugin, sizeof plugin))
        return cli_error(c, "UNSUPPORTED", "the NBD plugin %s was not built: it needs nbdkit's plugin header at build "
                         "time (Debian: nbdkit-plugin-dev; bin/smartssd deps installs it), then a rebuild", plugin);
    if (!on_path("nbdkit"))
        return cli_error(c, "UNSUPPORTED", "nbdkit is not installed (Debian: nbdkit; bin/smartssd deps installs it)");
    if (o.log) {
        /* relative to where the user is, whatever directory nbdkit works in */
        if (o.log[0] != '/' && getcwd(log_abs, sizeof log_abs)) {
            size_t n = strlen(log_abs);
            snprintf(log_abs + n, sizeof log_abs - n, "/%s", o.log);
            o.log = log_abs;
        }
    }
    if (o.unix_path) clear_stale(o.unix_path);
    if (np) return run_image(c, &o, pos[0], plugin);
    argvec a;
    build_argv(&a, &o, plugin, o.socket, 0);
    say_where(&o, o.socket);
    fflush(NULL);
    execvp("nbdkit", a.v);
    return cli_error(c, "UNSUPPORTED", "cannot run nbdkit: %s", strerror(errno));
}

static int run_nbd(cli *c, int argc, char **argv) { return nbd_main(c, argc, argv, &CMD_NBD); }

const subcmd CMD_NBD = {
    "nbd", "IMAGE|--socket PATH (--unix PATH | --port N | --run CMD)",
    "the block namespace as an NBD export (nbdkit): fio, nbdcopy, nbdinfo, qemu-img", run_nbd,
    "Serves the device's block namespace (docs/BLOCK-IO.md) over NBD with nbdkit and the smartssd plugin.\n"
    "Every NBD read, write, trim, zero and flush is a block command with its virtual times: `csd stats`\n"
    "counts them, --trace shows them, and with --set paced=1 clients' latencies follow the device clock.\n"
    "An IMAGE is opened here and served to nbdkit on a private daemon socket; with --socket PATH nbdkit\n"
    "reaches a running csdd daemon, so objects and blocks share one device.\n\n"
    "options:\n"
    "  --socket PATH        a csdd daemon's socket (csd serve IMAGE --socket PATH) instead of an image\n"
    "  --unix PATH          listen on this Unix socket: nbd+unix:///?socket=PATH\n"
    "  --port N             listen on loopback TCP port N: nbd://127.0.0.1:N\n"
    "  --run CMD            run CMD with the export (nbdkit's captive mode: $uri, $unixsocket, $nbd), then\n"
    "                       stop; the exit status is CMD's. Without --unix/--port a private socket is used\n"
    "  --latency-csv FILE   one line per block request: op, offset, bytes, the device's arrival, admit,\n"
    "                       first flash and done times (ns), flash ops, status, the wall time it took\n"
    "  --read-only          refuse writes, trims and zeroes\n"
    "  --threads N          nbdkit threads per connection: requests in service at once (default 64)\n"
    "  --retry SECONDS      how long a request waits for a daemon that went away and comes back (30)\n"
    "  --refill-us US       after completions, how long the device waits for the client's next requests\n"
    "                       before its clock moves on, so it sees the client's queue depth (default 2000;\n"
    "                       0 = never wait: fastest, but the device may run ahead of a slow client)\n"
    "  --unaligned          accept requests of any size and offset: nbdkit's blocksize filter reads,\n"
    "                       modifies and writes the pages around them (without it the export's block size\n"
    "                       is the device page and unaligned requests get EINVAL)\n",
};
