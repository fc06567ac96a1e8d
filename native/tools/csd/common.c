#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "transport/server.h"

/* "csd serve" also ships as the program csdd, which is not a csd subcommand */
static const char *cmd_prefix(const subcmd *s) { return strcmp(s->name, "csdd") ? "csd " : ""; }

void cli_print_help(const subcmd *s, FILE *out) {
    fprintf(out, "usage: %s%s %s\n\n%s\n", cmd_prefix(s), s->name, s->args, s->summary);
    if (s->help && *s->help) fprintf(out, "\n%s", s->help);
    fprintf(out, "\ncommon options:\n"
                 "  --json               print one JSON object instead of text\n"
                 "  --set KEY=VALUE      override a device parameter for this session (repeatable)\n"
                 "  --config FILE        read parameter overrides from FILE (key = value lines)\n"
                 "  --trace FILE         write the session's timeline to FILE (Chrome trace-event JSON;\n"
                 "                       open it in ui.perfetto.dev; docs/TRACING.md)\n"
                 "  -h, --help           this help\n");
}

int cli_usage_error(cli *c, const subcmd *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s%s: ", cmd_prefix(s), s->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see '%s%s --help')\n", cmd_prefix(s), s->name);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_common_opt(cli *c, const subcmd *s, int opt, const char *arg, int *rc) {
    char err[512];
    switch (opt) {
    case 'j':
        c->json = 1;
        return 1;
    case 'h':
        cli_print_help(s, stdout);
        *rc = 0;
        return -1;
    case 'S': {
        /* Checked against the default preset now, applied onto the image's params at open. */
        csd_params scratch;
        csd_params_preset(&scratch, NULL);
        const char *eq = strchr(arg, '=');
        char key[128];
        if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof key) {
            *rc = cli_usage_error(c, s, "--set needs KEY=VALUE, got '%s'", arg);
            return -1;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
        if (csd_params_set(&scratch, key, eq + 1, err, sizeof err)) {
            *rc = cli_usage_error(c, s, "%s", err);
            return -1;
        }
        if (c->nsets == (int)(sizeof c->sets / sizeof c->sets[0])) {
            *rc = cli_usage_error(c, s, "too many --set options");
            return -1;
        }
        c->sets[c->nsets++] = arg;
        return 1;
    }
    case 'C':
        c->config = arg;
        return 1;
    case 'T': {
        /* the session's timeline: shorthand for --set trace_file=FILE */
        csd_params scratch;
        csd_params_preset(&scratch, NULL);
        if (csd_params_set(&scratch, "trace_file", arg, err, sizeof err) || !*arg) {
            *rc = cli_usage_error(c, s, "--trace: %s", *arg ? err : "needs a file name");
            return -1;
        }
        if (c->nsets == (int)(sizeof c->sets / sizeof c->sets[0])) {
            *rc = cli_usage_error(c, s, "too many --set options");
            return -1;
        }
        snprintf(c->trace_set, sizeof c->trace_set, "trace_file=%s", arg);
        c->sets[c->nsets++] = c->trace_set;
        return 1;
    }
    case '?':
        *rc = cli_usage_error(c, s, "bad option");
        return -1;
    }
    return 0;
}

void cli_json_print(json_object *o) {
    puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

int cli_error(cli *c, const char *status, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "error", json_object_new_string(status));
        json_object_object_add(o, "message", json_object_new_string(msg));
        cli_json_print(o);
    } else {
        fprintf(stderr, "csd: %s: %s\n", status, msg);
    }
    return EXIT_DEVICE;
}

/* Session params = the image's params, then --config, then each --set in order. */
static int apply_overrides(cli *c, csd_params *p, char *err, size_t errlen) {
    if (c->config && csd_params_load_file(p, c->config, err, errlen)) return -1;
    for (int i = 0; i < c->nsets; i++) {
        const char *eq = strchr(c->sets[i], '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - c->sets[i]), c->sets[i]);
        if (csd_params_set(p, key, eq + 1, err, errlen)) return -1;
    }
    return 0;
}

/* The open's edit hook: the image's params, then --config and --set; a bad one is the caller's
 * INVALID_ARGUMENT, not an open failure. */
typedef struct {
    cli *c;
    int called, bad;
} open_edit;

static int edit_params(void *arg, csd_params *p, char *err, size_t errlen) {
    open_edit *x = arg;
    x->called = 1;
    if (apply_overrides(x->c, p, err, errlen)) {
        x->bad = 1;
        return -EINVAL;
    }
    return 0;
}

static int open_mode(cli *c, const char *image, int background) {
    char err[512];
    struct stat st;
    if (stat(image, &st) == 0 && S_ISSOCK(st.st_mode)) {
        /* a csdd daemon's socket: its session is the daemon's */
        if (c->config || c->nsets)
            return cli_error(c, "INVALID_ARGUMENT", "--set, --config and --trace apply to an image; %s is a daemon's "
                             "socket (give them to 'csd serve')", image);
        return cli_connect(c, image);
    }
    /* overrides are applied inside the one open, to the params it reads from the image */
    open_edit x = { c, 0, 0 };
    csd_open_opts opts = { .override = NULL, .background = background };
    if (c->config || c->nsets) {
        opts.edit = edit_params;
        opts.edit_arg = &x;
    }
    int rc = csd_device_open(&c->dev, image, &opts, err, sizeof err);
    if (rc && x.bad) return cli_error(c, "INVALID_ARGUMENT", "%s", err);
    if (rc && x.called)
        return cli_error(c, "INVALID_ARGUMENT", "cannot open %s with these parameters: %s", image, err);
    if (rc) return cli_error(c, "IO_ERROR", "cannot open %s: %s", image, err);
    return 0;
}

int cli_open(cli *c, const char *image) { return open_mode(c, image, 0); }
int cli_open_background(cli *c, const char *image) { return open_mode(c, image, 1); }

void cli_close(cli *c) {
    if (c->dev) csd_device_close(c->dev);
    c->dev = NULL;
    if (c->remote_fd > 0) close(c->remote_fd);
    c->remote_fd = 0;
}

int cli_connect(cli *c, const char *socket_path) {
    char err[512];
    int fd = csd_client_connect(socket_path, err, sizeof err);
    if (fd < 0) return cli_error(c, "UNAVAILABLE", "%s", err);
    c->remote_fd = fd;
    return 0;
}

Smartssd__V1__Response *cli_call(cli *c, Smartssd__V1__Request *req, const csd_payload *payload) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        cli_error(c, "RESOURCE_EXHAUSTED", "out of memory");
        return NULL;
    }
    smartssd__v1__request__pack(req, buf);
    uint8_t *out;
    size_t out_len;
    if (c->remote_fd > 0 && payload) {
        free(buf);
        cli_error(c, "UNSUPPORTED", "this command moves bulk data and needs the image, not a daemon's socket");
        return NULL;
    }
    int rc = c->remote_fd > 0 ? csd_client_call(c->remote_fd, buf, n, &out, &out_len)
                              : csd_device_command(c->dev, buf, n, payload, &out, &out_len);
    free(buf);
    if (rc) {
        cli_error(c, "INTERNAL", "command failed: %s", strerror(-rc));
        return NULL;
    }
    Smartssd__V1__Response *resp = smartssd__v1__response__unpack(NULL, out_len, out);
    csd_free(out);
    if (!resp) {
        cli_error(c, "INTERNAL", "response does not decode");
        return NULL;
    }
    if (resp->status != SMARTSSD__V1__STATUS__OK) {
        cli_error(c, csd_status_name(resp->status), "%s", resp->message);
        smartssd__v1__response__free_unpacked(resp, NULL);
        return NULL;
    }
    return resp;
}

uint64_t cli_find_object(cli *c, const char *name, uint64_t *size) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__StatObject st = SMARTSSD__V1__STAT_OBJECT__INIT;
    st.name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
    req.stat = &st;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return 0;
    uint64_t id = r->stat->info->object_id;
    if (size) *size = r->stat->info->size;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}
