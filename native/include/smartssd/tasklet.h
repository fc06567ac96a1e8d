/* The tasklet ABI (Smart SSD paper, sections III-D and IV-A): init with static and runtime params,
 * process the input one record (or text line) at a time, finish, emit output rows.
 *
 * The runtime owns framing: it reassembles records and lines that straddle flash pages, applies the
 * extent ownership rules (a text extent owns the lines that start in it; a record extent owns the
 * records whose first byte is in it), and calls record() for each one in input order. A tasklet
 * charges its work to the emulated core with csd_io_charge(); the device turns that into virtual
 * time with the cost model of docs/DEVICE-CONFIG.md (cycles at core_mhz + DRAM accesses). */
#ifndef SMARTSSD_TASKLET_H
#define SMARTSSD_TASKLET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct csd_kv {
    const char *key;
    const char *value;
} csd_kv;

/* What init rejected, for the host to point at the setting to fix. The caller of init owns it. */
#define CSD_PARAM_KEY_MAX 128
typedef struct csd_tasklet_diag {
    char param[CSD_PARAM_KEY_MAX + 1];   /* the rejected parameter's key, "" when none was named */
} csd_tasklet_diag;

typedef struct csd_tasklet_args {
    const csd_kv *static_params;     /* from create_object(TASKLET) */
    size_t n_static;
    const csd_kv *runtime_params;    /* from create_object(OUTPUT) */
    size_t n_runtime;
    const char *const *keywords;     /* from create_object(OUTPUT) */
    size_t n_keywords;
    const uint8_t *plan;             /* packed smartssd.v1.Plan, for the "plan" tasklet */
    size_t plan_len;
    uint32_t page_bytes;             /* flash page size, bytes */
    csd_tasklet_diag *diag;          /* where csd_args_reject records a key; may be NULL */
} csd_tasklet_args;

typedef enum csd_framing_kind {
    CSD_FRAMING_RECORDS = 1,         /* fixed-size records of record_bytes */
    CSD_FRAMING_LINES = 2,           /* '\n'-terminated lines; record() gets the line without '\n' */
    CSD_FRAMING_TWO_STAGE = 3,       /* two-stage text (2PM paper III-A): raw pages to page_scan() in any
                                      * order, then finish(); the tasklet applies the LINES ownership
                                      * rules itself, from the csd_extent it is given */
    CSD_FRAMING_BYTES = 4,           /* the extent's bytes as they arrive: record() gets each page's part of
                                      * the extent, in order, with its object offset (columnar formats
                                      * whose layout is not a sequence of records) */
} csd_framing_kind;

/* The extent an execution covers, for TWO_STAGE tasklets. */
typedef struct csd_extent {
    uint64_t offset, end;            /* bytes [offset, end) of the object */
    uint64_t object_size;            /* bytes */
    uint32_t page_bytes;             /* bytes per page */
} csd_extent;

/* What page_scan() found in one page (2PM paper III-A): no part of the pattern, part of it (the
 * second stage must combine pages), or the whole pattern. */
#define CSD_PAGE_MISMATCHED 1
#define CSD_PAGE_PARTIAL 2
#define CSD_PAGE_MATCHED 3

typedef struct csd_framing {
    csd_framing_kind kind;
    uint32_t record_bytes;           /* RECORDS: bytes per record (>= 1) */
    int skip_header;                 /* LINES: skip the object's first line (only when extent offset is 0) */
} csd_framing;

typedef struct csd_tasklet_io csd_tasklet_io;

/* record() return values besides 0 */
#define CSD_SKIP_PAGE 1              /* skip the remaining records that start in the current page */
#define CSD_STOP 2                   /* stop reading input (e.g. limit reached); finish() still runs */

/* The ops' ABI tag: "CSDT" and the size of csd_tasklet_ops. A native tasklet's entry point
 * (CSD_TASKLET) hands the device its ops with abi set to this, so a device refuses, naming it, a shared
 * object built against another layout of this struct (one before the tag, or a later one) instead of
 * reading past its end. */
#define CSD_TASKLET_ABI_MAGIC 0x43534454u
#define CSD_TASKLET_ABI (((uint64_t)CSD_TASKLET_ABI_MAGIC << 32) | (uint64_t)sizeof(csd_tasklet_ops))

typedef struct csd_tasklet_ops {
    uint64_t abi;                    /* CSD_TASKLET_ABI, set by CSD_TASKLET; 0 in the device's own */
    const char *name;
    const char *summary;             /* one line for identify and --help */
    /* Parse params, allocate state, choose framing. Return 0 or a negative errno and fill err. */
    int (*init)(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err, size_t errlen);
    /* Optional: a new page of input starts (page_index within the object). */
    int (*page)(void *state, csd_tasklet_io *io, uint64_t page_index);
    /* One record or line; offset is its byte offset in the object. 0, CSD_SKIP_PAGE, CSD_STOP, or
     * a negative errno after csd_io_fail(). */
    int (*record)(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset);
    /* Input exhausted: emit aggregated rows. 0 or a negative errno after csd_io_fail(). */
    int (*finish)(void *state, csd_tasklet_io *io);
    void (*destroy)(void *state);
    /* TWO_STAGE framing only, the first stage: one page of the extent (page_index within the object;
     * len < page_bytes only for the object's last page), once, as it lands, in any order. Sets *cls
     * (CSD_PAGE_*) and *need_next = 1 when the extent's last line may run past this page (the runtime
     * then reads the next page too). finish() is the second stage, after every page. 0 or a negative
     * errno after csd_io_fail(). record() is not called for a TWO_STAGE execution. */
    int (*page_scan)(void *state, csd_tasklet_io *io, const csd_extent *x, uint64_t page_index,
                     const uint8_t *data, size_t len, int *cls, int *need_next);
    /* Optional: the output rows this tasklet emits, so a host may push filters to the device
     * (docs/USER-TASKLETS.md, "Declaring filterable columns"). Its columns in row order, comma-separated,
     * each "NAME TYPE" (TYPE: STRING, BIGINT, DOUBLE, BOOLEAN) and, for a column the device may filter
     * on, "FILTER(op ...)" with ops among = <> < <= > >= IN NULL and, for STRING, STARTS_WITH ENDS_WITH
     * CONTAINS; e.g. "region STRING FILTER(= IN), count BIGINT FILTER(= < <= > >=)". The device then
     * drops the rows a pushed filter rejects before they are shipped, and refuses a filter on a column
     * or with an operator not declared. NULL: nothing can be pushed. */
    const char *schema;
    /* Optional, BYTES framing: 0 when the tasklet will not look at the bytes of this page of the object
     * (page_bytes each); the device then does not read it from flash and the tasklet gets zeros for
     * it, and the extent's leading pages it does not need are not fed at all (record() then first sees
     * a later offset). Asked before the page is read; must not change its answers. */
    int (*need_page)(void *state, uint64_t page_index, uint32_t page_bytes);
} csd_tasklet_ops;

/* Charge work to the core running this tasklet: CPU cycles and DRAM accesses (4-byte read + compare). */
void csd_io_charge(csd_tasklet_io *io, uint64_t cycles, uint64_t dram_accesses);

/* Emit one output row, built value by value. csd_io_row_end() returns 0, CSD_STOP when the output's
 * max_outputs is reached (the tasklet should stop), or -ENOSPC when the output buffer is full. */
void csd_io_row_begin(csd_tasklet_io *io);
void csd_io_val_int(csd_tasklet_io *io, int64_t v);
void csd_io_val_double(csd_tasklet_io *io, double v);
void csd_io_val_bytes(csd_tasklet_io *io, const void *p, size_t n);
void csd_io_val_str(csd_tasklet_io *io, const char *s);
void csd_io_val_bool(csd_tasklet_io *io, int b);
void csd_io_val_null(csd_tasklet_io *io);
int csd_io_row_end(csd_tasklet_io *io);

/* Record a failure message (printf-style); the tasklet then returns a negative errno. */
void csd_io_fail(csd_tasklet_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parameter helpers: the last value for key in runtime params, else static params, else NULL. */
const char *csd_args_get(const csd_tasklet_args *a, const char *key);

/* Name the parameter init is rejecting (call it beside filling err); the host then reports that key
 * as a field of its own instead of parsing the message. The first key named wins. */
void csd_args_reject(const csd_tasklet_args *a, const char *key);

/* A user tasklet names its ops with CSD_TASKLET(ops) once: the SDK (bin/smartssd tasklet build) builds
 * the file as WebAssembly for the device's sandbox, or as a native shared object for a trusted
 * directory, and both find the tasklet through this entry point. It returns a copy of ops tagged with
 * CSD_TASKLET_ABI (made once, whichever thread asks first). docs/USER-TASKLETS.md. */
#define CSD_TASKLET(ops)                                                                              \
    __attribute__((visibility("default"))) const csd_tasklet_ops *csd_tasklet_entry(void) {           \
        static csd_tasklet_ops csd_tagged_;                                                           \
        static int csd_tagging_; /* 0 untagged, 1 being tagged, 2 tagged */                           \
        int csd_untagged_ = 0;                                                                        \
        if (__atomic_compare_exchange_n(&csd_tagging_, &csd_untagged_, 1, 0, __ATOMIC_ACQUIRE,        \
                                        __ATOMIC_ACQUIRE)) {                                          \
            csd_tagged_ = (ops);                                                                      \
            csd_tagged_.abi = CSD_TASKLET_ABI;                                                        \
            __atomic_store_n(&csd_tagging_, 2, __ATOMIC_RELEASE);                                     \
        }                                                                                             \
        while (__atomic_load_n(&csd_tagging_, __ATOMIC_ACQUIRE) != 2) {}                              \
        return &csd_tagged_;                                                                          \
    }

/* Built-in tasklets, NULL-terminated. */
const csd_tasklet_ops *const *csd_tasklets_builtin(void);
const csd_tasklet_ops *csd_tasklet_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
