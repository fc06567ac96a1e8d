/* csd tasklet add|ls|rm: users' own tasklet programs on the device (Smart SSD paper III-C: add or
 * remove a tasklet). add downloads a WebAssembly module (sandboxed) or, with --native, names a
 * shared object inside the device's trusted directory (tasklet_trusted_dir). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct add_opts {
    int native, replace;
} add_opts;

static int on_opt(cli *c, int opt, const char *arg, void *a) {
    add_opts *o = a;
    if (opt == 'n') o->native = 1;
    else if (opt == 'r') o->replace = 1;
    else return -1;
    return 0;
}

static const char *format_name(Smartssd__V1__ProgramFormat f) {
    return f == SMARTSSD__V1__PROGRAM_FORMAT__WASM ? "wasm" : f == SMARTSSD__V1__PROGRAM_FORMAT__NATIVE ? "native" : "?";
}

static int read_file(const char *path, uint8_t **out, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = cap < (128u << 20) ? realloc(b, cap *= 2) : NULL;
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!b) return -EFBIG;
    if (err) {
        free(b);
        return -EIO;
    }
    *out = b;
    *len = n;
    return 0;
}

static int do_add(cli *c, char **pos, int np, add_opts *o) {
    if (np != 4) return cli_usage_error(c, &CMD_TASKLET, "add needs IMAGE NAME FILE");
    const char *name = pos[2], *file = pos[3];
    uint8_t *prog = NULL;
    size_t len = 0;
    if (o->native) {
        /* the program is the file's name inside the trusted directory; the device resolves it */
        prog = (uint8_t *)strdup(file);
        len = prog ? strlen(file) : 0;
    } else {
        int rc = read_file(file, &prog, &len);
        if (rc) return cli_error(c, "INVALID_ARGUMENT", "cannot read %s: %s", file, strerror(-rc));
    }
    int rc = cli_open(c, pos[0]);
    if (rc) {
        free(prog);
        return rc;
    }
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__InstallTasklet in = SMARTSSD__V1__INSTALL_TASKLET__INIT;
    in.name = (char *)name;
    in.format = o->native ? SMARTSSD__V1__PROGRAM_FORMAT__NATIVE : SMARTSSD__V1__PROGRAM_FORMAT__WASM;
    in.program.data = prog;
    in.program.len = len;
    in.replace = o->replace;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_INSTALL_TASKLET;
    req.install_tasklet = &in;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    free(prog);
    if (!r) return EXIT_DEVICE;
    Smartssd__V1__InstallTaskletReply *ir = r->install_tasklet;
    if (c->json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "name", json_object_new_string(name));
        json_object_object_add(j, "program_id", json_object_new_int64((int64_t)ir->program_id));
        json_object_object_add(j, "hash", json_object_new_string(ir->hash));
        json_object_object_add(j, "unchanged", json_object_new_boolean(ir->unchanged));
        json_object_object_add(j, "format", json_object_new_string(o->native ? "native" : "wasm"));
        cli_json_print(j);
    } else {
        printf("%s %s (%s, %s)\n", ir->unchanged ? "unchanged" : "installed", name, o->native ? "native" : "wasm", ir->hash);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

static int do_ls(cli *c, char **pos, int np) {
    if (np != 2) return cli_usage_error(c, &CMD_TASKLET, "ls needs IMAGE");
    int rc = cli_open(c, pos[0]);
    if (rc) return rc;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListTasklets lt = SMARTSSD__V1__LIST_TASKLETS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST_TASKLETS;
    req.list_tasklets = &lt;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    Smartssd__V1__ListTaskletsReply *l = r->list_tasklets;
    if (c->json) {
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < l->n_tasklets; i++) {
            Smartssd__V1__TaskletInfo *t = l->tasklets[i];
            json_object *j = json_object_new_object();
            json_object_object_add(j, "name", json_object_new_string(t->name));
            json_object_object_add(j, "format", json_object_new_string(format_name(t->format)));
            json_object_object_add(j, "program_id", json_object_new_int64((int64_t)t->program_id));
            json_object_object_add(j, "size", json_object_new_int64((int64_t)t->size));
            json_object_object_add(j, "hash", json_object_new_string(t->hash));
            json_object_object_add(j, "summary", json_object_new_string(t->summary ? t->summary : ""));
            json_object_object_add(j, "schema", json_object_new_string(t->schema ? t->schema : ""));
            json_object_array_add(arr, j);
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "tasklets", arr);
        cli_json_print(o);
    } else {
        for (size_t i = 0; i < l->n_tasklets; i++) {
            Smartssd__V1__TaskletInfo *t = l->tasklets[i];
            printf("%-24s %-6s %10" PRIu64 "  %s\n", t->name, format_name(t->format), t->size, t->hash);
            if (t->schema && *t->schema) printf("  schema: %s\n", t->schema);
        }
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

static int do_rm(cli *c, char **pos, int np) {
    if (np != 3) return cli_usage_error(c, &CMD_TASKLET, "rm needs IMAGE NAME");
    int rc = cli_open(c, pos[0]);
    if (rc) return rc;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__RemoveTasklet rt = SMARTSSD__V1__REMOVE_TASKLET__INIT;
    rt.name = pos[2];
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_REMOVE_TASKLET;
    req.remove_tasklet = &rt;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "removed", json_object_new_string(pos[2]));
        cli_json_print(o);
    } else {
        printf("removed %s\n", pos[2]);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

static int run_tasklet(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "native", no_argument, 0, 'n' },
        { "replace", no_argument, 0, 'r' },
    };
    add_opts o = { 0 };
    char *pos[4];
    int np, rc = cli_parse(c, &CMD_TASKLET, argc, argv, extra, 2, on_opt, &o, pos, 2, 4, &np);
    if (rc >= 0) return rc;
    /* csd tasklet ACTION IMAGE ...: the action first, then the image like every other command */
    const char *action = pos[0];
    char *rest[4] = { pos[1], NULL, np > 2 ? pos[2] : NULL, np > 3 ? pos[3] : NULL };
    rest[1] = (char *)action;
    if (!strcmp(action, "add")) return do_add(c, rest, np, &o);
    if (!strcmp(action, "ls")) return do_ls(c, rest, np);
    if (!strcmp(action, "rm")) return do_rm(c, rest, np);
    return cli_usage_error(c, &CMD_TASKLET, "unknown action '%s' (add, ls or rm)", action);
}

const subcmd CMD_TASKLET = {
    "tasklet", "add IMAGE NAME FILE | ls IMAGE | rm IMAGE NAME",
    "install, list and remove users' own tasklet programs", run_tasklet,
    "  add IMAGE NAME FILE  download FILE (a .wasm from `bin/smartssd tasklet build`) as tasklet NAME;\n"
    "                       the same bytes again change nothing\n"
    "  --native             FILE is a shared object's name inside the device's tasklet_trusted_dir\n"
    "  --replace            replace a program of that name that holds other bytes\n"
    "  ls IMAGE             installed programs: name, format, bytes, content hash (and a declared schema)\n"
    "  rm IMAGE NAME        remove a program\n"
    "Run one like a built-in: csd run IMAGE NAME --input OBJECT [--param K=V].\n" };
