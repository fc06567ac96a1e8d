/* format, put, get, ls, rm, mv */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK (4u << 20)

/* Parses options; positional args land in pos (at most maxpos). Returns -1 to go on, else an exit code. */
static int parse(cli *c, const subcmd *s, int argc, char **argv, const struct option *extra, size_t nextra,
                 int (*on_opt)(cli *, int, const char *, void *), void *arg, char **pos, int minpos, int maxpos,
                 int *npos) {
    struct option opts[32] = { CLI_COMMON_LONGOPTS };
    size_t n = 0;
    while (opts[n].name) n++;
    for (size_t i = 0; i < nextra && n < 31; i++) opts[n++] = extra[i];
    opts[n] = (struct option){ 0 };
    optind = 1;
    opterr = 0;
    int opt, rc = 0;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, opts, NULL)) != -1) {
        int k = cli_common_opt(c, s, opt, optarg, &rc);
        if (k < 0) return rc;
        if (k) continue;
        if (!on_opt || (rc = on_opt(c, opt, optarg, arg)) != 0) {
            if (!on_opt || rc < 0) return cli_usage_error(c, s, "unknown option '%s'", argv[optind - 1]);
            return rc;
        }
    }
    int np = argc - optind;
    if (np < minpos || np > maxpos)
        return cli_usage_error(c, s, "expected %s", s->args);
    for (int i = 0; i < np; i++) pos[i] = argv[optind + i];
    *npos = np;
    return -1;
}

int cli_parse(cli *c, const subcmd *s, int argc, char **argv, const struct option *extra, size_t nextra,
              int (*on_opt)(cli *, int, const char *, void *), void *arg, char **pos, int minpos, int maxpos,
              int *npos) {
    return parse(c, s, argc, argv, extra, nextra, on_opt, arg, pos, minpos, maxpos, npos);
}

/* ---------------------------------------------------------------- format */

typedef struct format_opts {
    const char *capacity, *preset, *config;
} format_opts;

static int format_opt(cli *c, int opt, const char *arg, void *a) {
    format_opts *f = a;
    switch (opt) {
    case 'c': f->capacity = arg; return 0;
    case 'p': f->preset = arg; return 0;
    case 'F': f->config = arg; return 0;
    }
    return -1;
}

/* mkdir -p of PATH's directory, as a user expects of `format out/dev.img` in a fresh clone */
static int make_parents(const char *path) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) return -ENAMETOOLONG;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = 0;
    for (char *p = dir + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char was = *p;
            *p = 0;
            if (mkdir(dir, 0777) && errno != EEXIST) return -errno;
            if (!was) return 0;
            *p = was;
        }
    }
}

static int run_format(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "capacity", required_argument, 0, 'c' }, { "preset", required_argument, 0, 'p' },
        { "device-config", required_argument, 0, 'F' },
    };
    format_opts f = { 0 };
    char *pos[1] = { NULL };
    int np, rc = parse(c, &CMD_FORMAT, argc, argv, extra, 3, format_opt, &f, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    if (!f.capacity) return cli_usage_error(c, &CMD_FORMAT, "--capacity SIZE is required");
    uint64_t cap;
    if (csd_parse_size(f.capacity, &cap) || cap == 0)
        return cli_usage_error(c, &CMD_FORMAT, "bad --capacity '%s' (e.g. 1G, 512M)", f.capacity);
    csd_params p;
    char err[512];
    if (csd_params_preset(&p, f.preset)) {
        return cli_usage_error(c, &CMD_FORMAT, "unknown preset '%s'", f.preset);
    }
    /* --config at format time is the device's configuration file (geometry included). */
    const char *cfg = f.config ? f.config : c->config;
    if (cfg && csd_params_load_file(&p, cfg, err, sizeof err)) return cli_usage_error(c, &CMD_FORMAT, "%s", err);
    for (int i = 0; i < c->nsets; i++) {
        const char *eq = strchr(c->sets[i], '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - c->sets[i]), c->sets[i]);
        if (csd_params_set(&p, key, eq + 1, err, sizeof err)) return cli_usage_error(c, &CMD_FORMAT, "%s", err);
    }
    if (csd_params_validate(&p, err, sizeof err)) return cli_usage_error(c, &CMD_FORMAT, "%s", err);
    rc = make_parents(pos[0]);
    if (rc) return cli_error(c, "IO_ERROR", "format %s: cannot create its directory: %s", pos[0], strerror(-rc));
    rc = csd_format(pos[0], cap, &p, err, sizeof err);
    if (rc) return cli_error(c, "IO_ERROR", "format %s: %s", pos[0], err);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "image", json_object_new_string(pos[0]));
        json_object_object_add(o, "capacity_bytes", json_object_new_int64((int64_t)cap));
        json_object_object_add(o, "preset", json_object_new_string(p.preset));
        cli_json_print(o);
    } else {
        printf("formatted %s: %" PRIu64 " bytes, preset %s\n", pos[0], cap, p.preset);
    }
    return 0;
}

const subcmd CMD_FORMAT = {
    "format", "IMAGE --capacity SIZE [--preset NAME | --config FILE] [--set KEY=VALUE...]",
    "create a device image (sparse) holding SIZE bytes of data", run_format,
    "options:\n"
    "  --capacity SIZE      host-visible capacity, e.g. 1G, 512M (required)\n"
    "  --preset NAME        device preset: smartssd-paper (default), tiny, ys9203, 2pm, hybrid, drs\n"
    "  --config FILE        device configuration file (key = value; 'preset = NAME' first)\n"
    "  --set KEY=VALUE      set one parameter (see docs/DEVICE-CONFIG.md)\n",
};

/* ---------------------------------------------------------------- put */

static void progress_bar(uint64_t done, uint64_t total) {
    int width = 40, fill = total ? (int)(done * width / total) : width;
    fprintf(stderr, "\r[%.*s%*s] %3d%% %" PRIu64 "/%" PRIu64 " bytes", fill,
            "########################################", width - fill, "", total ? (int)(done * 100 / total) : 100,
            done, total);
}

static Smartssd__V1__Response *create_data(cli *c, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    return cli_call(c, &req, NULL);
}

typedef struct put_opts { int64_t hint; const char *bad; } put_opts;

static int put_opt(cli *c, int opt, const char *arg, void *a) {
    (void)c;
    put_opts *o = a;
    if (opt != 'H') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (!*arg || *end || errno || arg[0] == '-' || v > UINT32_MAX) o->bad = arg;
    else o->hint = (int64_t)v;
    return 0;
}

static int run_put(cli *c, int argc, char **argv) {
    static const struct option extra[] = { { "hint", required_argument, 0, 'H' } };
    put_opts po = { 0, NULL };
    char *pos[3];
    int np, rc = parse(c, &CMD_PUT, argc, argv, extra, 1, put_opt, &po, pos, 3, 3, &np);
    if (rc >= 0) return rc;
    if (po.bad) return cli_usage_error(c, &CMD_PUT, "bad --hint '%s' (a number, 0 = none)", po.bad);
    int fd = strcmp(pos[2], "-") ? open(pos[2], O_RDONLY) : 0;
    if (fd < 0) return cli_error(c, "INVALID_ARGUMENT", "%s: %s", pos[2], strerror(errno));
    struct stat st;
    uint64_t total = (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ? (uint64_t)st.st_size : 0;
    if ((rc = cli_open(c, pos[0]))) {
        if (fd) close(fd);
        return rc;
    }
    Smartssd__V1__Response *r = create_data(c, pos[1]);
    if (!r) {
        if (fd) close(fd);
        return EXIT_DEVICE;
    }
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint8_t *buf = malloc(CHUNK);
    uint64_t off = 0, device_ns = 0;
    int bar = !c->json && isatty(2);
    rc = 0;
    for (;;) {
        size_t got = 0;
        while (got < CHUNK) {
            ssize_t k = read(fd, buf + got, CHUNK - got);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) {
                rc = cli_error(c, "IO_ERROR", "%s: %s", pos[2], strerror(errno));
                break;
            }
            if (k == 0) break;
            got += (size_t)k;
        }
        if (rc || got == 0) break;
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
        w.object_id = id;
        w.offset = off;
        w.hint = (uint32_t)po.hint;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
        req.write_object = &w;
        csd_payload pl = { .in = buf, .in_len = got };
        r = cli_call(c, &req, &pl);
        if (!r) {
            rc = EXIT_DEVICE;
            break;
        }
        device_ns += r->device_ns;
        smartssd__v1__response__free_unpacked(r, NULL);
        off += got;
        if (bar) progress_bar(off, total > off ? total : off);
        if (got < CHUNK) break;
    }
    if (bar) fputc('\n', stderr);
    free(buf);
    if (fd) close(fd);
    if (rc) return rc;
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(pos[1]));
        json_object_object_add(o, "object_id", json_object_new_int64((int64_t)id));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)off));
        json_object_object_add(o, "device_ns", json_object_new_int64((int64_t)device_ns));
        cli_json_print(o);
    } else {
        printf("put %s: %" PRIu64 " bytes (object %" PRIu64 ", device time %.3f ms)\n", pos[1], off, id,
               device_ns / 1e6);
    }
    return 0;
}

const subcmd CMD_PUT = { "put", "IMAGE NAME FILE [--hint N]", "store FILE (or - for stdin) as data object NAME",
                         run_put,
                         "options:\n  --hint N             placement hint of the data: its lifetime class, e.g. an LSM\n"
                         "                       level + 1 (0 = none, the default; at most 255; docs/HYBRID.md)\n" };

/* ---------------------------------------------------------------- get */

static int run_get(cli *c, int argc, char **argv) {
    char *pos[3];
    int np, rc = parse(c, &CMD_GET, argc, argv, NULL, 0, NULL, NULL, pos, 2, 3, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    uint64_t size, id = cli_find_object(c, pos[1], &size);
    if (!id) return EXIT_DEVICE;
    const char *path = np == 3 ? pos[2] : "-";
    if (c->json && !strcmp(path, "-"))
        return cli_usage_error(c, &CMD_GET, "--json needs an output FILE (the data would mix with the JSON)");
    int fd = strcmp(path, "-") ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 1;
    if (fd < 0) return cli_error(c, "INVALID_ARGUMENT", "%s: %s", path, strerror(errno));
    uint8_t *buf = malloc(CHUNK);
    uint64_t off = 0, device_ns = 0;
    while (off < size) {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = id;
        ro.offset = off;
        ro.length = CHUNK;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        req.read_object = &ro;
        csd_payload pl = { .out = buf, .out_cap = CHUNK };
        Smartssd__V1__Response *r = cli_call(c, &req, &pl);
        if (!r) {
            rc = EXIT_DEVICE;
            break;
        }
        size_t n = (size_t)r->read_object->payload_length;
        device_ns += r->device_ns;
        smartssd__v1__response__free_unpacked(r, NULL);
        for (size_t w = 0; w < n;) {
            ssize_t k = write(fd, buf + w, n - w);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) {
                rc = cli_error(c, "IO_ERROR", "%s: %s", path, strerror(errno));
                break;
            }
            w += (size_t)k;
        }
        if (rc || n == 0) break;
        off += n;
    }
    free(buf);
    if (fd != 1) close(fd);
    if (rc >= 0 && rc != 0) return rc;
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(pos[1]));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)off));
        json_object_object_add(o, "device_ns", json_object_new_int64((int64_t)device_ns));
        cli_json_print(o);
    } else if (fd != 1) {
        printf("get %s: %" PRIu64 " bytes (device time %.3f ms)\n", pos[1], off, device_ns / 1e6);
    }
    return 0;
}

const subcmd CMD_GET = { "get", "IMAGE NAME [FILE]", "copy data object NAME to FILE (default: stdout)", run_get, "" };

/* ---------------------------------------------------------------- ls */

static int run_ls(cli *c, int argc, char **argv) {
    char *pos[2];
    int np, rc = parse(c, &CMD_LS, argc, argv, NULL, 0, NULL, NULL, pos, 1, 2, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    json_object *arr = json_object_new_array();
    char after[CSD_MAX_PACKET > 0 ? 1100 : 1] = "";
    for (;;) {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
        lo.prefix = np == 2 ? pos[1] : "";
        lo.start_after = after;
        lo.limit = 1000;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
        req.list = &lo;
        Smartssd__V1__Response *r = cli_call(c, &req, NULL);
        if (!r) {
            json_object_put(arr);
            return EXIT_DEVICE;
        }
        for (size_t i = 0; i < r->list->n_objects; i++) {
            Smartssd__V1__ObjectInfo *in = r->list->objects[i];
            if (c->json) {
                json_object *o = json_object_new_object();
                json_object_object_add(o, "name", json_object_new_string(in->name));
                json_object_object_add(o, "object_id", json_object_new_int64((int64_t)in->object_id));
                json_object_object_add(o, "size", json_object_new_int64((int64_t)in->size));
                json_object_object_add(o, "pages", json_object_new_int64((int64_t)in->pages));
                json_object_object_add(o, "mtime_ms", json_object_new_int64((int64_t)in->mtime_ms));
                json_object_object_add(o, "atime_ms", json_object_new_int64((int64_t)in->atime_ms));
                json_object_object_add(o, "ctime_ms", json_object_new_int64((int64_t)in->ctime_ms));
                json_object_array_add(arr, o);
            } else {
                char when[32] = "-";
                time_t secs = (time_t)(in->mtime_ms / 1000);
                struct tm tm;
                if (in->mtime_ms && localtime_r(&secs, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
                printf("%12" PRIu64 "  %6" PRIu64 "  %16s  %s\n", in->size, in->object_id, when, in->name);
            }
            snprintf(after, sizeof after, "%s", in->name);
        }
        int more = r->list->more && r->list->n_objects;
        smartssd__v1__response__free_unpacked(r, NULL);
        if (!more) break;
    }
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "objects", arr);
        cli_json_print(o);
    } else {
        json_object_put(arr);
    }
    return 0;
}

const subcmd CMD_LS = { "ls", "IMAGE [PREFIX]", "list data objects (size, id, name)", run_ls, "" };

/* ---------------------------------------------------------------- rm, mv */

static int simple_done(cli *c, const char *verb, const char *name) {
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, verb, json_object_new_string(name));
        cli_json_print(o);
    }
    return 0;
}

static int run_rm(cli *c, int argc, char **argv) {
    char *pos[2];
    int np, rc = parse(c, &CMD_RM, argc, argv, NULL, 0, NULL, NULL, pos, 2, 2, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    uint64_t id = cli_find_object(c, pos[1], NULL);
    if (!id) return EXIT_DEVICE;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__DeleteObject d = SMARTSSD__V1__DELETE_OBJECT__INIT;
    d.object_id = id;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
    req.delete_object = &d;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    smartssd__v1__response__free_unpacked(r, NULL);
    return simple_done(c, "deleted", pos[1]);
}

const subcmd CMD_RM = { "rm", "IMAGE NAME", "delete data object NAME", run_rm, "" };

typedef struct trim_opts { uint64_t off, len; int have_len; const char *bad; } trim_opts;

static int trim_opt(cli *c, int opt, const char *arg, void *a) {
    (void)c;
    trim_opts *o = a;
    if (opt != 'O' && opt != 'L') return -1;
    uint64_t v;
    if (csd_parse_size(arg, &v)) o->bad = arg;
    else if (opt == 'O') o->off = v;
    else {
        o->len = v;
        o->have_len = 1;
    }
    return 0;
}

static int run_trim(cli *c, int argc, char **argv) {
    static const struct option extra[] = { { "offset", required_argument, 0, 'O' },
                                           { "length", required_argument, 0, 'L' } };
    trim_opts to = { 0 };
    char *pos[2];
    int np, rc = parse(c, &CMD_TRIM, argc, argv, extra, 2, trim_opt, &to, pos, 2, 2, &np);
    if (rc >= 0) return rc;
    if (to.bad) return cli_usage_error(c, &CMD_TRIM, "bad size '%s' (bytes, K/M/G suffixes)", to.bad);
    if ((rc = cli_open(c, pos[0]))) return rc;
    uint64_t size = 0, id = cli_find_object(c, pos[1], &size);
    if (!id) return EXIT_DEVICE;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__TrimObject t = SMARTSSD__V1__TRIM_OBJECT__INIT;
    t.object_id = id;
    t.offset = to.off;
    /* the default is the rest of the object; the device checks the range */
    t.length = to.have_len ? to.len : (size > to.off ? size - to.off : 0);
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_TRIM;
    req.trim = &t;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    uint64_t ns = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "trimmed", json_object_new_string(pos[1]));
        json_object_object_add(o, "offset", json_object_new_int64((int64_t)t.offset));
        json_object_object_add(o, "length", json_object_new_int64((int64_t)t.length));
        json_object_object_add(o, "device_ns", json_object_new_int64((int64_t)ns));
        cli_json_print(o);
    }
    return 0;
}

const subcmd CMD_TRIM = { "trim", "IMAGE NAME [--offset N] [--length N]",
                          "deallocate whole pages of data object NAME (they read as zeros)", run_trim,
                          "options:\n  --offset N           first byte (default 0)\n"
                          "  --length N           bytes (default: to the end of the object)\n" };

static int mv_opt(cli *c, int opt, const char *arg, void *a) {
    if (opt == 'f') {
        *(int *)a = 1;
        return 0;
    }
    return -1;
}

static int run_mv(cli *c, int argc, char **argv) {
    static const struct option extra[] = { { "force", no_argument, 0, 'f' } };
    int force = 0;
    char *pos[3];
    int np, rc = parse(c, &CMD_MV, argc, argv, extra, 1, mv_opt, &force, pos, 3, 3, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    uint64_t id = cli_find_object(c, pos[1], NULL);
    if (!id) return EXIT_DEVICE;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__RenameObject m = SMARTSSD__V1__RENAME_OBJECT__INIT;
    m.object_id = id;
    m.new_name = pos[2];
    m.replace = force;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_RENAME;
    req.rename = &m;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    smartssd__v1__response__free_unpacked(r, NULL);
    return simple_done(c, "renamed", pos[2]);
}

const subcmd CMD_MV = { "mv", "IMAGE NAME NEW_NAME [--force]", "rename a data object", run_mv,
                        "options:\n  --force              replace NEW_NAME if it exists\n" };
