/* One command in flight: the response being built, what to free once it is packed, and the handlers
 * the dispatcher (dispatch.c) routes each Request to. Handlers return 0, or -1 after cmd_fail(). */
#ifndef CSD_HIL_CMD_H
#define CSD_HIL_CMD_H

#include <stdarg.h>
#include <stdint.h>

#include "smartssd/v1/device.pb-c.h"
#include "hil/device.h"

#define CSD_MAX_PARAMS 256
#define CSD_MAX_PARAM_BYTES 4096
#define CSD_DEFAULT_RESULT_CHUNK (1u << 20)

typedef struct cmd_ctx {
    Smartssd__V1__Response *resp;
    const csd_payload *payload;
    int status;
    char msg[1024];
    csd_tasklet_diag diag;           /* a tasklet parameter the command was refused for */
    uint64_t device_ns;
    int charged;                     /* device_ns already set by an engine call */
    void **allocs;
    size_t n_allocs, cap_allocs;
} cmd_ctx;

/* Record a failure; returns -1 for `return cmd_fail(...)`. */
int cmd_fail(cmd_ctx *c, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fail with the status for a negative errno and a message. */
int cmd_fail_errno(cmd_ctx *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Memory freed after the response is packed. */
void *cmd_alloc(cmd_ctx *c, size_t n);
char *cmd_strdup(cmd_ctx *c, const char *s);
/* Charge the command's device time: cmd overhead + ops + host link bytes (advancing tasklet runs). */
void cmd_charge(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host);
/* The same for a data read or write, also counted in the I/O latency counters (stats io.*). */
void cmd_charge_io(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host);
/* Reply to create_object with the new object's id. */
int cmd_reply_id(cmd_ctx *c, uint64_t id);

/* Data objects (cmd_data.c): the object-based file system (paper IV-B). */
int cmd_create_data(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_write(csd_device *d, const Smartssd__V1__WriteObject *m, cmd_ctx *c);
int cmd_read_data(csd_device *d, const Smartssd__V1__ReadObject *m, cmd_ctx *c);
int cmd_delete_data(csd_device *d, const Smartssd__V1__DeleteObject *m, cmd_ctx *c);
int cmd_rename(csd_device *d, const Smartssd__V1__RenameObject *m, cmd_ctx *c);
int cmd_list(csd_device *d, const Smartssd__V1__ListObjects *m, cmd_ctx *c);
int cmd_stat(csd_device *d, const Smartssd__V1__StatObject *m, cmd_ctx *c);
int cmd_trim(csd_device *d, const Smartssd__V1__TrimObject *m, cmd_ctx *c);
int cmd_set_times(csd_device *d, const Smartssd__V1__SetTimes *m, cmd_ctx *c);
/* Tasklets (cmd_tasklet.c): the paper's Fig. 5 sequence. */
int cmd_create_tasklet(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_create_output(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_execute(csd_device *d, const Smartssd__V1__ExecuteObject *m, cmd_ctx *c);
int cmd_read_output(csd_device *d, vobj *o, const Smartssd__V1__ReadObject *m, cmd_ctx *c);
int cmd_delete_vobj(csd_device *d, vobj *o, cmd_ctx *c);
/* User tasklet programs (cmd_program.c): download, list, remove. */
int cmd_install_tasklet(csd_device *d, const Smartssd__V1__InstallTasklet *m, cmd_ctx *c);
int cmd_list_tasklets(csd_device *d, const Smartssd__V1__ListTasklets *m, cmd_ctx *c);
int cmd_remove_tasklet(csd_device *d, const Smartssd__V1__RemoveTasklet *m, cmd_ctx *c);
/* -1 after cmd_fail when name is in the programs' namespace (data commands may not touch it). */
int cmd_program_reserved(cmd_ctx *c, const char *name, const char *what);
/* The installed program name, loaded (a reference); -ENOENT when none is installed, -1 after
 * cmd_fail when it cannot be loaded. */
struct csd_user_tasklet;
int device_program_load(csd_device *d, cmd_ctx *c, const char *name, struct csd_user_tasklet **out);
size_t device_program_names(csd_device *d, cmd_ctx *c, char ***out);
/* A declared schema (csd_tasklet_ops.schema) as the list reply's columns (cmd-owned memory); "" or
 * NULL gives none. 0 or -ENOMEM. */
int cmd_decl_columns(cmd_ctx *c, const char *schema, Smartssd__V1__DeclaredColumn ***out, size_t *n);
struct csd_sandbox *device_sandbox(csd_device *d);
/* Host block I/O (cmd_block.c): BlockSubmit, BlockPoll, BlockInfo. */
int cmd_block_submit(csd_device *d, const Smartssd__V1__BlockSubmit *m, cmd_ctx *c);
int cmd_block_poll(csd_device *d, const Smartssd__V1__BlockPoll *m, cmd_ctx *c);
int cmd_block_info(csd_device *d, const Smartssd__V1__BlockInfo *m, cmd_ctx *c);
/* 1 when name is in the block namespace's reserved prefix (object commands may not see it). */
int cmd_block_reserved(const char *name);
/* The device itself (cmd_info.c). */
int cmd_identify(csd_device *d, const Smartssd__V1__Identify *m, cmd_ctx *c);
int cmd_stats(csd_device *d, const Smartssd__V1__Stats *m, cmd_ctx *c);

#endif
