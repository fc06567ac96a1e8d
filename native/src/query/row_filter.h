/* Filters pushed into a tasklet's output (CreateObject.filter): the tasklet's declaration
 * (csd_tasklet_ops.schema) parsed, a pushed filter checked against it, and the filter applied to each
 * output row before it is shipped, by the plan tasklet's own expression evaluator (plan_eval.c), so
 * a pushed predicate means exactly what it means in a plan. docs/USER-TASKLETS.md. */
#ifndef CSD_QUERY_ROW_FILTER_H
#define CSD_QUERY_ROW_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"
#include "runtime/exec_io.h"

#define CSD_DECL_MAX_COLUMNS 64
#define CSD_DECL_MAX_BYTES 4096
#define CSD_DECL_NAME_MAX 64

/* Bits of csd_decl_column.ops: bit (FilterOp - 1) of the proto's FilterOp. */
#define CSD_FOP_BIT(op) (1u << ((op) - 1))

typedef struct csd_decl_column {
    char name[CSD_DECL_NAME_MAX + 1];
    uint8_t type;        /* ColumnType: INT64, DOUBLE, STRING, BOOL */
    uint32_t ops;        /* CSD_FOP_BIT(FilterOp) of each declared filter */
} csd_decl_column;

typedef struct csd_decl {
    uint32_t n;
    csd_decl_column cols[CSD_DECL_MAX_COLUMNS];
} csd_decl;

/* Parse a declaration (NULL or "" = no columns). 0 or -EINVAL with err naming what is wrong. */
int csd_decl_parse(const char *schema, csd_decl *out, char *err, size_t errlen);
/* The declaration's filters of a column as text ("= <> IN"), for messages. */
void csd_decl_ops_text(uint32_t ops, char *out, size_t cap);

/* Check a pushed filter against the declaration: 0, -ENOTSUP (a column or operator the tasklet does
 * not declare) or -EINVAL (not the shape of a pushed filter), with err. */
int csd_row_filter_check(const csd_decl *d, const Smartssd__V1__Expr *e, const char *tasklet, char *err,
                         size_t errlen);

typedef struct csd_row_filter csd_row_filter;

/* Compile e (already checked) over d's columns. 0 or -EINVAL / -ENOMEM with err. */
int csd_row_filter_create(csd_row_filter **out, const csd_decl *d, const Smartssd__V1__Expr *e, const char *tasklet,
                          char *err, size_t errlen);
void csd_row_filter_destroy(csd_row_filter *f);
/* The csd_row_keep_fn of tasklet_io: 1 keep the row, 0 drop it, < 0 with err (a row that does not
 * match the declaration). */
int csd_row_filter_keep(void *f, const csd_io_val *vals, size_t n, const uint8_t *arena, uint64_t *cycles,
                        char *err, size_t errlen);

#endif
