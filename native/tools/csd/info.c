/* stats, identify, check */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int run_stats(cli *c, int argc, char **argv) {
    char *pos[1];
    int np, rc = cli_parse(c, &CMD_STATS, argc, argv, NULL, 0, NULL, NULL, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    if (c->json) {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < r->stats->n_counters; i++)
            json_object_object_add(o, r->stats->counters[i]->key,
                                   json_object_new_int64(strtoll(r->stats->counters[i]->value, NULL, 10)));
        json_object_object_add(o, "device_clock_ns", json_object_new_int64((int64_t)r->stats->device_clock_ns));
        cli_json_print(o);
    } else {
        for (size_t i = 0; i < r->stats->n_counters; i++)
            printf("%-28s %s\n", r->stats->counters[i]->key, r->stats->counters[i]->value);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

const subcmd CMD_STATS = { "stats", "IMAGE", "device counters (persistent FTL state and this session's activity)",
                           run_stats, "" };

static int run_identify(cli *c, int argc, char **argv) {
    char *pos[1];
    int np, rc = cli_parse(c, &CMD_IDENTIFY, argc, argv, NULL, 0, NULL, NULL, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    if ((rc = cli_open(c, pos[0]))) return rc;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Identify id = SMARTSSD__V1__IDENTIFY__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
    req.identify = &id;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    Smartssd__V1__IdentifyReply *i = r->identify;
    if (c->json) {
        json_object *o = json_object_new_object(), *g = json_object_new_object(), *t = json_object_new_array(),
                    *p = json_object_new_object();
        json_object_object_add(o, "model", json_object_new_string(i->model));
        json_object_object_add(o, "preset", json_object_new_string(i->preset));
        json_object_object_add(o, "capacity_bytes", json_object_new_int64((int64_t)i->capacity_bytes));
        json_object_object_add(o, "physical_bytes", json_object_new_int64((int64_t)i->physical_bytes));
        json_object_object_add(o, "cores", json_object_new_int(i->cores));
        json_object_object_add(o, "request_scheduler", json_object_new_string(i->request_scheduler));
        json_object_object_add(o, "chip_scheduler", json_object_new_string(i->chip_scheduler));
        json_object_object_add(o, "ftl", json_object_new_string(i->ftl));
        json_object_object_add(o, "flash_scheduler", json_object_new_string(i->flash_scheduler));
        json_object_object_add(o, "placement", json_object_new_string(i->placement));
        json_object_object_add(o, "issue_model", json_object_new_string(i->issue_model));
        json_object *pol = json_object_new_object();
        for (size_t k = 0; k < i->n_policies; k++)
            json_object_object_add(pol, i->policies[k]->key, json_object_new_string(i->policies[k]->value));
        json_object_object_add(o, "policies", pol);
        json_object_object_add(o, "protocol_version", json_object_new_int(i->protocol_version));
        json_object_object_add(g, "channels", json_object_new_int(i->geometry->channels));
        json_object_object_add(g, "chips_per_channel", json_object_new_int(i->geometry->chips_per_channel));
        json_object_object_add(g, "dies_per_chip", json_object_new_int(i->geometry->dies_per_chip));
        json_object_object_add(g, "planes_per_die", json_object_new_int(i->geometry->planes_per_die));
        json_object_object_add(g, "blocks_per_plane", json_object_new_int(i->geometry->blocks_per_plane));
        json_object_object_add(g, "pages_per_block", json_object_new_int(i->geometry->pages_per_block));
        json_object_object_add(g, "page_bytes", json_object_new_int(i->geometry->page_bytes));
        json_object_object_add(o, "geometry", g);
        for (size_t k = 0; k < i->n_tasklets; k++) json_object_array_add(t, json_object_new_string(i->tasklets[k]));
        json_object_object_add(o, "tasklets", t);
        json_object *ut = json_object_new_array();
        for (size_t k = 0; k < i->n_user_tasklets; k++)
            json_object_array_add(ut, json_object_new_string(i->user_tasklets[k]));
        json_object_object_add(o, "user_tasklets", ut);
        json_object_object_add(o, "sandbox", json_object_new_string(i->sandbox));
        json_object_object_add(o, "trusted_dir", json_object_new_string(i->trusted_dir));
        for (size_t k = 0; k < i->n_params; k++)
            json_object_object_add(p, i->params[k]->key, json_object_new_string(i->params[k]->value));
        json_object_object_add(o, "params", p);
        cli_json_print(o);
    } else {
        printf("model              %s\npreset             %s\ncapacity           %" PRIu64 " bytes\n"
               "physical           %" PRIu64 " bytes\ngeometry           %u ch x %u chips x %u dies x %u planes x %u "
               "blocks x %u pages x %u bytes\ncores              %u\nrequest scheduler  %s (%s issue)\n"
               "ftl                %s\nplacement          %s\nflash scheduler    %s\nchip scheduler     %s\n"
               "tasklets          ",
               i->model, i->preset, i->capacity_bytes, i->physical_bytes, i->geometry->channels,
               i->geometry->chips_per_channel, i->geometry->dies_per_chip, i->geometry->planes_per_die,
               i->geometry->blocks_per_plane, i->geometry->pages_per_block, i->geometry->page_bytes, i->cores,
               i->request_scheduler, i->issue_model, i->ftl, i->placement, i->flash_scheduler, i->chip_scheduler);
        for (size_t k = 0; k < i->n_tasklets; k++) printf(" %s", i->tasklets[k]);
        printf("\n");
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

const subcmd CMD_IDENTIFY = { "identify", "IMAGE", "geometry, cores, policies, tasklets and every parameter",
                              run_identify, "" };

typedef struct check_report {
    json_object *arr;
    int json;
} check_report;

static void on_problem(void *arg, const char *line) {
    check_report *r = arg;
    if (r->json) json_object_array_add(r->arr, json_object_new_string(line));
    else printf("%s\n", line);
}

static int run_check(cli *c, int argc, char **argv) {
    char *pos[1];
    int np, rc = cli_parse(c, &CMD_CHECK, argc, argv, NULL, 0, NULL, NULL, pos, 1, 1, &np);
    if (rc >= 0) return rc;
    check_report rep = { json_object_new_array(), c->json };
    int n = csd_check(pos[0], on_problem, &rep);
    if (n < 0) {
        json_object_put(rep.arr);
        return cli_error(c, "IO_ERROR", "cannot check %s: %s", pos[0], strerror(-n));
    }
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "image", json_object_new_string(pos[0]));
        json_object_object_add(o, "problems", json_object_new_int(n));
        json_object_object_add(o, "report", rep.arr);
        json_object_object_add(o, "clean", json_object_new_boolean(n == 0));
        cli_json_print(o);
    } else {
        json_object_put(rep.arr);
        printf("%s: %s (%d problem%s)\n", pos[0], n ? "NOT clean" : "clean", n, n == 1 ? "" : "s");
    }
    return n ? EXIT_DEVICE : 0;
}

const subcmd CMD_CHECK = { "check", "IMAGE", "verify an image offline: metadata, out-of-band records, checksums",
                           run_check, "" };
