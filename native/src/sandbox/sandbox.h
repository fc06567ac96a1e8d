/* User tasklets: programs users download into the device (Smart SSD paper III-C and IV-A), run
 * behind the same tasklet ABI as the built-ins. The paper's future work (VI) asks that such
 * tasklets cannot overwrite data or crash the device, so by default a program is WebAssembly run by
 * Wasmtime with a memory limit, an instruction budget (fuel) per call and a stack limit; it reaches
 * the device only through the ABI's calls. Natively compiled shared objects (the paper's own model,
 * for speed) load only from the directory the device configuration names as trusted.
 *
 * One csd_sandbox per device (no globals): the Wasmtime engine and the loaded programs. */
#ifndef CSD_SANDBOX_SANDBOX_H
#define CSD_SANDBOX_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "smartssd/tasklet.h"
#include "runtime/exec.h"
#include "sandbox/program.h"

typedef struct csd_sandbox_limits {
    uint64_t memory_bytes;        /* bytes of linear memory one instance may have */
    uint64_t fuel_per_call;       /* instructions (Wasmtime fuel) per call: init, one page, finish */
    uint32_t cycles_per_kfuel;    /* core cycles charged per 1000 units of fuel */
    uint64_t stack_bytes;         /* bytes of native stack wasm code may use */
    const char *trusted_dir;      /* native programs load only from here; "" = refused */
    uint64_t output_buffer_bytes; /* bytes: a row larger than this is refused as it is built */
} csd_sandbox_limits;

typedef struct csd_sandbox csd_sandbox;
typedef struct csd_user_tasklet csd_user_tasklet;

/* "wasmtime 50.0.1", or "" when this build has no sandbox. */
const char *csd_sandbox_name(void);

/* The engine is made on first use. 0 or -ENOMEM. */
int csd_sandbox_create(csd_sandbox **out, const csd_sandbox_limits *lim);
void csd_sandbox_destroy(csd_sandbox *s);

/* Check a program (compile and check its imports and exports; for NATIVE, the path and the entry
 * point) without keeping it. 0 or a negative errno with err saying what is wrong. */
int csd_sandbox_check(csd_sandbox *s, const char *name, uint32_t format, const uint8_t *p, size_t len,
                      char *err, size_t errlen);

/* The loaded program for (name, hash): compiled once and cached until csd_sandbox_forget(name).
 * Takes a reference (csd_user_tasklet_put). 0 or a negative errno with err. */
int csd_sandbox_load(csd_sandbox *s, const char *name, const csd_program *prog, csd_user_tasklet **out,
                     char *err, size_t errlen);
/* The cached program name loaded from stored object source_id (a reference), or NULL: lets the device
 * skip re-reading a program it already holds in DRAM. csd_sandbox_note_source records the object. */
csd_user_tasklet *csd_sandbox_find(csd_sandbox *s, const char *name, uint64_t source_id);
void csd_sandbox_note_source(csd_user_tasklet *u, uint64_t source_id);
/* Drop name from the cache (remove or replace); running executions keep their reference. */
void csd_sandbox_forget(csd_sandbox *s, const char *name);
void csd_user_tasklet_put(csd_user_tasklet *u);
void csd_user_tasklet_ref(csd_user_tasklet *u);

/* The ops and exec hooks an execution of u uses (csd_exec_create_hooked). */
const csd_tasklet_ops *csd_user_tasklet_ops(csd_user_tasklet *u);
const csd_exec_hooks *csd_user_tasklet_hooks(csd_user_tasklet *u);
/* The program's one-line summary ("" when it gives none). */
const char *csd_user_tasklet_summary(const csd_user_tasklet *u);

/* Bytes of a declared schema with its NUL (longer ones are refused at load). */
#define CSD_SANDBOX_SCHEMA_MAX 4097

/* open a program (as csd_sandbox_check) and keep it: one reference, not cached. */
int csd_sandbox_open(csd_sandbox *s, const char *name, uint32_t format, const uint8_t *p, size_t len,
                     csd_user_tasklet **out, char *err, size_t errlen);

/* The guest ABI version the sandbox speaks (export csd_abi_version). */
#define CSD_GUEST_ABI_VERSION 1

#endif
