/* csd: the device's command-line tool. Every subcommand talks to the device through protocol packets
 * (csd_device_command), exactly like the host library does; csd replay on an image through the block
 * C API (smartssd/block.h), the same commands without the packing. */
#ifndef CSD_CLI_H
#define CSD_CLI_H

#include <getopt.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"

typedef struct cli {
    int json;                 /* print one JSON object */
    const char *prog;
    csd_device *dev;
    const char *config;       /* --config FILE: session overrides */
    const char *sets[64];     /* --set KEY=VALUE, in order */
    int nsets;
    char trace_set[300];      /* --trace FILE, as trace_file=FILE */
    int remote_fd;            /* > 0: commands go to a csdd daemon over this socket instead of dev */
} cli;

typedef struct subcmd {
    const char *name;
    const char *args;         /* usage after the name */
    const char *summary;
    int (*run)(cli *c, int argc, char **argv);
    const char *help;         /* option details */
} subcmd;

/* Exit codes: 0 ok, 1 device/command error, 2 usage error. */
#define EXIT_DEVICE 1
#define EXIT_USAGE 2

int cli_usage_error(cli *c, const subcmd *s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cli_print_help(const subcmd *s, FILE *out);
/* Common option handling: returns 1 if the option was one of --json, --set, --config, --help. */
int cli_common_opt(cli *c, const subcmd *s, int opt, const char *arg, int *rc);

/* Open the image in deterministic mode (tasklets advance inside commands). 0 or EXIT_DEVICE. */
int cli_open(cli *c, const char *image);
/* Open with the device thread running (for serving). */
int cli_open_background(cli *c, const char *image);
void cli_close(cli *c);
/* Talk to the csdd daemon at socket_path instead (commands without payloads). 0 or EXIT_DEVICE. */
int cli_connect(cli *c, const char *socket_path);

/* Send a request; on device failure print the status and message (or a JSON error) and return NULL. */
Smartssd__V1__Response *cli_call(cli *c, Smartssd__V1__Request *req, const csd_payload *payload);
/* Print an error from the CLI itself, as text or JSON. Returns EXIT_DEVICE. */
int cli_error(cli *c, const char *status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Print a JSON object (and free it). */
void cli_json_print(json_object *o);

#define CLI_COMMON_LONGOPTS \
    { "json", no_argument, 0, 'j' }, { "help", no_argument, 0, 'h' }, \
    { "set", required_argument, 0, 'S' }, { "config", required_argument, 0, 'C' }, \
    { "trace", required_argument, 0, 'T' }
#define CLI_COMMON_SHORTOPTS "h"

/* getopt_long over the common options plus extra; on_opt handles the extra ones (0 = taken, -1 =
 * unknown). Positional args go to pos. Returns -1 to go on, or the exit code to return. */
int cli_parse(cli *c, const subcmd *s, int argc, char **argv, const struct option *extra, size_t nextra,
              int (*on_opt)(cli *, int, const char *, void *), void *arg, char **pos, int minpos, int maxpos,
              int *npos);

uint64_t cli_find_object(cli *c, const char *name, uint64_t *size);  /* 0 on failure (printed) */

extern const subcmd CMD_FORMAT, CMD_PUT, CMD_GET, CMD_LS, CMD_RM, CMD_RUN, CMD_STATS, CMD_IDENTIFY,
    CMD_CHECK, CMD_MV, CMD_SERVE, CMD_TOP, CMD_TASKLET, CMD_TRIM, CMD_REPLAY, CMD_NBD;

#endif
