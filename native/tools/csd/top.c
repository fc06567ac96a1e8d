/* top: a running device at a glance, like top(1): per-core utilization, the running tasklets and
 * their progress, per-chip queue depths, bytes read and sent — refreshed from the stats command of
 * a csdd daemon (or of an image opened here). q or Ctrl-C quits. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

typedef struct top_opts {
    double interval;        /* s */
    long iterations;        /* 0 = until quit */
} top_opts;

static volatile sig_atomic_t quit;
static void on_signal(int sig) { quit = sig; }

static int top_opt(cli *c, int opt, const char *arg, void *a) {
    top_opts *o = a;
    char *end;
    switch (opt) {
    case 'i':
        o->interval = strtod(arg, &end);
        return *end || o->interval < 0.05 || o->interval > 3600 ? 2 : 0;
    case 'n':
        o->iterations = strtol(arg, &end, 10);
        return *end || o->iterations < 1 ? 2 : 0;
    }
    return -1;
}

/* One stats reply as (key, value) pairs, kept for the next frame's deltas. */
typedef struct snap {
    Smartssd__V1__Response *r;
    uint64_t clock, wall;
} snap;

static uint64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *get(const snap *s, const char *key) {
    if (!s->r) return NULL;
    for (size_t i = 0; i < s->r->stats->n_counters; i++)
        if (!strcmp(s->r->stats->counters[i]->key, key)) return s->r->stats->counters[i]->value;
    return NULL;
}

static uint64_t num(const snap *s, const char *key) {
    const char *v = get(s, key);
    return v ? strtoull(v, NULL, 10) : 0;
}

static void bar(double frac, int width) {
    int n = frac <= 0 ? 0 : frac >= 1 ? width : (int)(frac * width + 0.5);
    putchar('[');
    for (int i = 0; i < width; i++) putchar(i < n ? '#' : ' ');
    putchar(']');
}

static void frame(const snap *now, const snap *before, int tty) {
    if (tty) fputs("\033[H\033[J", stdout);
    uint64_t dclock = before->r && now->clock > before->clock ? now->clock - before->clock : 0;
    double dwall = before->r ? (now->wall - before->wall) / 1e9 : 0;
    printf("device clock %.6f s   commands %" PRIu64 "   running tasklets %" PRIu64 "\n", now->clock / 1e9,
           num(now, "host.commands"), num(now, "isp.running"));
    for (uint32_t k = 0;; k++) {
        char key[48];
        snprintf(key, sizeof key, "core.%u.busy_ns", k);
        if (!get(now, key)) break;
        uint64_t b = num(now, key), b0 = num(before, key);
        double util = dclock ? (double)(b - b0) / (double)dclock : 0;
        printf("core %-3u ", k);
        bar(util, 30);
        printf(" %5.1f%% of device time\n", 100 * util);
    }
    for (size_t i = 0; now->r && i < now->r->stats->n_counters; i++) {
        const char *key = now->r->stats->counters[i]->key;
        uint64_t id;
        char what[16];
        if (sscanf(key, "run.%" SCNu64 ".%15s", &id, what) != 2 || strcmp(what, "tasklet")) continue;
        char k1[64], k2[64], k3[64];
        snprintf(k1, sizeof k1, "run.%" PRIu64 ".pages_done", id);
        snprintf(k2, sizeof k2, "run.%" PRIu64 ".pages_total", id);
        snprintf(k3, sizeof k3, "run.%" PRIu64 ".device_ns", id);
        uint64_t done = num(now, k1), total = num(now, k2);
        printf("run %-14" PRIu64 " %-10s ", id, now->r->stats->counters[i]->value);
        bar(total ? (double)done / (double)total : 0, 20);
        printf(" %" PRIu64 "/%" PRIu64 " pages, %.3f s\n", done, total, num(now, k3) / 1e9);
    }
    /* one number per chip while that fits a line, else per channel (its chips summed) */
    uint32_t nchips = 0;
    uint64_t deepest = 0, queued = 0;
    char key[48];
    for (;; nchips++) {
        snprintf(key, sizeof key, "chip.%u.queued", nchips);
        if (!get(now, key)) break;
        uint64_t q = num(now, key);
        queued += q;
        if (q > deepest) deepest = q;
    }
    uint32_t group = nchips > 16 ? (nchips + 15) / 16 : 1;
    printf("%s queues ", group > 1 ? "chip-group" : "chip");
    for (uint32_t k = 0; k < nchips; k += group) {
        uint64_t sum = 0;
        for (uint32_t j = k; j < k + group && j < nchips; j++) {
            snprintf(key, sizeof key, "chip.%u.queued", j);
            sum += num(now, key);
        }
        printf("%s%" PRIu64, k ? " " : "", sum);
    }
    printf("  (%" PRIu64 " queued, deepest chip %" PRIu64 "%s)\n", queued, deepest,
           group > 1 ? ", groups of consecutive chips" : "");
    uint64_t rd = num(now, "flash.bytes_read"), out = num(now, "host.bytes_out");
    printf("flash read %.1f MiB", rd / 1048576.0);
    if (dwall > 0) printf(" (%.1f MiB/s)", (rd - num(before, "flash.bytes_read")) / 1048576.0 / dwall);
    printf("   to host %.1f MiB", out / 1048576.0);
    if (dwall > 0) printf(" (%.1f MiB/s)", (out - num(before, "host.bytes_out")) / 1048576.0 / dwall);
    printf("\nISP buffer %" PRIu64 " KiB in use, peak %" PRIu64 " KiB\n", num(now, "isp.buffer_used_bytes") >> 10,
           num(now, "isp.buffer_peak_bytes") >> 10);
    if (tty) printf("\nq quits\n");
    else printf("\n");
    fflush(stdout);
}

static int run_top(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "interval", required_argument, 0, 'i' }, { "iterations", required_argument, 0, 'n' },
    };
    top_opts o = { 1.0, 0 };
    char *pos[1];
    int np, rc = cli_parse(c, &CMD_TOP, argc, argv, extra, 2, top_opt, &o, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    struct stat st;
    if (stat(pos[0], &st) == 0 && S_ISSOCK(st.st_mode)) rc = cli_connect(c, pos[0]);
    else rc = cli_open_background(c, pos[0]);
    if (rc) return rc;
    int tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    struct termios saved;
    if (tty && tcgetattr(STDIN_FILENO, &saved) == 0) {
        struct termios raw = saved;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    snap before = { 0 }, now = { 0 };
    rc = 0;
    for (long i = 0; !quit && (o.iterations == 0 || i < o.iterations); i++) {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__Stats sm = SMARTSSD__V1__STATS__INIT;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
        req.stats = &sm;
        Smartssd__V1__Response *r = cli_call(c, &req, NULL);
        if (!r) {
            rc = EXIT_DEVICE;
            break;
        }
        now = (snap){ r, r->stats->device_clock_ns, wall_ns() };
        frame(&now, &before, tty);
        if (before.r) smartssd__v1__response__free_unpacked(before.r, NULL);
        before = now;
        if (o.iterations && i + 1 == o.iterations) break;
        struct pollfd pf = { .fd = STDIN_FILENO, .events = POLLIN };
        if (poll(&pf, tty ? 1 : 0, (int)(o.interval * 1000)) > 0) {
            char ch;
            if (read(STDIN_FILENO, &ch, 1) == 1 && (ch == 'q' || ch == 'Q')) break;
        }
    }
    if (before.r) smartssd__v1__response__free_unpacked(before.r, NULL);
    if (tty) tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    return rc;
}

const subcmd CMD_TOP = { "top", "SOCKET|IMAGE", "watch a running device: cores, tasklets, chip queues, bytes",
                         run_top,
                         "options:\n"
                         "  --interval S         seconds between refreshes (default 1)\n"
                         "  --iterations N       stop after N frames (default: until q or Ctrl-C)\n"
                         "SOCKET is a csdd daemon's socket (csd serve IMAGE --socket PATH); an IMAGE is opened\n"
                         "here (it must not be in use).\n" };
