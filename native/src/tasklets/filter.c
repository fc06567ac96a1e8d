/* Data filter (Smart SSD paper, section V-C-4): compare one integer field of each fixed-size record
 * with a value. mode=records returns (offset, record) per match; mode=lbas returns each page that
 * holds a match once and skips the rest of that page (CSD_SKIP_PAGE), so a page costs only the
 * records up to its first match: the paper's trick for slow DRAM. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tasklets/tasklets_int.h"
#include "util/fixed.h"

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
enum { MODE_RECORDS, MODE_LBAS };

typedef struct filter {
    uint32_t off, width;
    int big_endian, is_signed, op, mode;
    int value_negative;        /* unsigned fields: a negative value is below every field */
    int64_t value_s;
    uint64_t value_u;
    uint64_t page;             /* page of the records being delivered (from the page hook) */
} filter;

static int filter_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                       size_t errlen) {
    static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge", NULL};
    static const char *const modes[] = {"records", "lbas", NULL};
    uint64_t entry, off, width;
    int be, sg, op, mode, rc;
    if ((rc = csd_tk_param_u64(args, "entry_bytes", 20, 1, 65536, &entry, err, errlen)) ||
        (rc = csd_tk_param_u64(args, "field_offset", 0, 0, 65535, &off, err, errlen)) ||
        (rc = csd_tk_param_u64(args, "field_width", 4, 1, 8, &width, err, errlen)) ||
        (rc = csd_tk_param_bool(args, "big_endian", 1, &be, err, errlen)) ||
        (rc = csd_tk_param_bool(args, "signed", 0, &sg, err, errlen)) ||
        (rc = csd_tk_param_choice(args, "op", ops, 0, &op, err, errlen)) ||
        (rc = csd_tk_param_choice(args, "mode", modes, MODE_RECORDS, &mode, err, errlen)))
        return rc;
    if (width != 1 && width != 2 && width != 4 && width != 8) {
        csd_args_reject(args, "field_width");
        snprintf(err, errlen, "param field_width: %llu is not 1, 2, 4 or 8", (unsigned long long)width);
        return -EINVAL;
    }
    if (off + width > entry) {
        snprintf(err, errlen, "field [%llu, %llu) lies past the %llu-byte record (field_offset + field_width > entry_bytes)",
                 (unsigned long long)off, (unsigned long long)(off + width), (unsigned long long)entry);
        return -EINVAL;
    }
    const char *vs = csd_args_get(args, "value");
    if (!vs) {
        csd_args_reject(args, "value");
        snprintf(err, errlen, "param value is required (the integer to compare with)");
        return -EINVAL;
    }
    filter *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    if (!csd_tk_parse_i64(vs, &f->value_s)) {
        f->value_negative = f->value_s < 0;
        f->value_u = (uint64_t)f->value_s;
    } else if (!sg && !csd_tk_parse_u64(vs, &f->value_u)) {
        f->value_s = INT64_MAX;   /* above every signed value: not used for unsigned fields */
    } else {
        free(f);
        csd_args_reject(args, "value");
        snprintf(err, errlen, "param value: '%s' is not a 64-bit integer", vs);
        return -EINVAL;
    }
    f->off = (uint32_t)off;
    f->width = (uint32_t)width;
    f->big_endian = be;
    f->is_signed = sg;
    f->op = op;
    f->mode = mode;
    framing->kind = CSD_FRAMING_RECORDS;
    framing->record_bytes = (uint32_t)entry;
    *state = f;
    return 0;
}

/* -1, 0, 1 as field <, ==, > value */
static int compare(const filter *f, const uint8_t *rec) {
    uint64_t raw = csd_load_uint(rec + f->off, f->width, f->big_endian);
    if (f->is_signed) {
        int64_t v;
        if (f->width < 8) {
            uint64_t sign = 1ull << (f->width * 8 - 1);
            v = (int64_t)(raw ^ sign) - (int64_t)sign;
        } else {
            v = (int64_t)raw;
        }
        return v < f->value_s ? -1 : v > f->value_s;
    }
    if (f->value_negative) return 1;
    return raw < f->value_u ? -1 : raw > f->value_u;
}

static int matches(int op, int c) {
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static int filter_page(void *state, csd_tasklet_io *io, uint64_t page_index) {
    ((filter *)state)->page = page_index;
    return 0;
}

static int filter_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    filter *f = state;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + CSD_TK_CYCLES_PER_COMPARE, 1);
    if (!matches(f->op, compare(f, rec))) return 0;
    csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(io);
    if (f->mode == MODE_LBAS) {
        csd_io_val_int(io, (int64_t)f->page);
        int rc = csd_io_row_end(io);
        return rc ? rc : CSD_SKIP_PAGE;
    }
    csd_io_val_int(io, (int64_t)off);
    csd_io_val_bytes(io, rec, len);
    return csd_io_row_end(io);
}

static void filter_destroy(void *state) { free(state); }

static const csd_tasklet_ops csd_tasklet_filter = {
    .name = "filter",
    .summary = "records whose integer field compares true with a value, or the pages holding them "
               "(params: entry_bytes, field_offset, field_width, big_endian, signed, op, value, mode)",
    .init = filter_init,
    .page = filter_page,
    .record = filter_record,
    .destroy = filter_destroy,
};

const csd_builtin csd_builtin_filter = { &csd_tasklet_filter, NULL };
