/* A hostile user tasklet for the sandbox tests: param `attack` picks what it tries.
 *   loop       spins forever in record()
 *   oob-read   reads far outside its memory
 *   oob-write  writes far outside its memory
 *   alloc      asks for 1 GiB and writes all of it anyway
 *   stack      recurses with 1 KiB frames until the stack runs out
 *   deep       recurses without locals (native call stack)
 *   clash      one 8 MiB frame touched only at its two ends (a stack clash: it jumps any guard page)
 *   peek       searches its whole memory for another object's bytes, then reads past its end
 *   bigrow     emits one row larger than any output buffer
 *   grow       grows its memory by 2 GiB directly (memory.grow), then writes there */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

#include "hostile_frames.h"

typedef struct st { char attack[16]; } st;

static int h_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t n) {
    st *s = calloc(1, sizeof *s);
    const char *v = csd_args_get(a, "attack");
    strncpy(s->attack, v ? v : "", sizeof s->attack - 1);
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = 32;
    *out = s;
    return 0;
}

__attribute__((noinline)) static int deep(int n) {
    if (n == -1) return 0;
    return deep(n + 1) * 3 + 1;
}

static int h_record(void *p, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    st *s = p;
    const char *a = s->attack;
    if (!strcmp(a, "loop")) {
        volatile uint64_t x = 0;
        for (;;) x++;
    }
    if (!strcmp(a, "oob-read")) return ((volatile const uint8_t *)rec)[0x7ff00000];
    if (!strcmp(a, "oob-write")) {
        ((volatile uint8_t *)rec)[-0x10000000 + 0x7ff00000] = 1;
        ((volatile uint8_t *)0xfffffff0u)[0] = 1;
        return 0;
    }
    if (!strcmp(a, "alloc")) {
        size_t big = (size_t)1 << 30;
        char *volatile q = malloc(big);
        memset(q, 0x5a, big);   /* q is NULL past the limit: this writes from address 0 on */
        return q[big - 1];
    }
    if (!strcmp(a, "stack")) return frames(0);
    if (!strcmp(a, "deep")) return deep(0);
    if (!strcmp(a, "clash")) return clash(rec[0]) == 12345 ? 1 : 0;
    if (!strcmp(a, "peek")) {
        /* everything it can see is its own memory: no other object's bytes are in there */
        size_t mem = __builtin_wasm_memory_size(0) * 65536ul;
        const uint8_t *volatile base = (const uint8_t *)rec - (uintptr_t)rec;
        const uint8_t *m = base;
        int64_t found = 0;
        static const char needle[] = { 'T', 'O', 'P', 'S', 'E', 'C', 'R', 'E', 'T' };   /* not a C string */
        for (const uint8_t *at = m + 1; (at = memmem(at, mem - (size_t)(at - m), needle, 9)) != NULL; at++)
            if (at != (const uint8_t *)needle) found++;
        csd_io_row_begin(io);
        csd_io_val_int(io, found);
        csd_io_row_end(io);
        /* the bytes right after its memory belong to the host: the read traps */
        return ((volatile const uint8_t *)m)[mem + 16];
    }
    if (!strcmp(a, "bigrow")) {
        size_t n = 256u << 10;
        char *q = malloc(n);
        if (!q) return -ENOMEM;
        memset(q, 'x', n);
        csd_io_row_begin(io);
        csd_io_val_bytes(io, q, n);
        return csd_io_row_end(io);
    }
    if (!strcmp(a, "grow")) {
        int r = (int)__builtin_wasm_memory_grow(0, 32768);   /* 2 GiB more: refused */
        if (r == -1) ((volatile uint8_t *)0x7ffffff0u)[0] = 1;
        return 0;
    }
    return 0;
}

static void h_destroy(void *p) { free(p); }

static const csd_tasklet_ops ops = { .name = "hostile", .init = h_init, .record = h_record, .destroy = h_destroy };
CSD_TASKLET(ops)
