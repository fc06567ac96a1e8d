/* libFuzzer target for loading user tasklet programs: input = [mode byte | bytes].
 *   mode 0: the bytes are a stored program record (sandbox/program.c decodes it)
 *   mode 1: the bytes are a WebAssembly module
 *   mode 2: the bytes are WebAssembly text (turned into a module by Wasmtime first)
 * A module is compiled and checked as install_tasklet does; one that passes is then run as a tasklet
 * (init, a few pages, finish) under small limits. Whatever the bytes, nothing may crash, leak or
 * read out of bounds, and every failure must come with a message. Seeds: fuzz/corpus/fuzz_program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec.h"
#include "sandbox/sandbox.h"
#ifdef CSD_HAVE_WASMTIME
#include <wasmtime.h>
#endif

static void run_program(csd_sandbox *sb, const csd_program *prog) {
    char err[512] = "";
    csd_user_tasklet *u;
    if (csd_sandbox_load(sb, "fuzz", prog, &u, err, sizeof err)) {
        if (!err[0]) abort();
        return;
    }
    csd_outbuf ob;
    csd_outbuf_init(&ob, 1 << 16, 100);
    csd_exec *t;
    csd_tasklet_args args = { .page_bytes = 64 };
    if (!csd_exec_create_hooked(&t, csd_user_tasklet_ops(u), csd_user_tasklet_hooks(u), NULL, &args, &ob, err, sizeof err)) {
        uint8_t obj[192];
        for (size_t i = 0; i < sizeof obj; i++) obj[i] = (uint8_t)(i * 37);
        uint64_t first, last;
        if (!csd_exec_begin(t, sizeof obj, 0, sizeof obj, 64, &first, &last, err, sizeof err)) {
            int more = 1, rc = 0;
            for (uint64_t pg = first; pg <= last + 1 && more && !rc && pg * 64 < sizeof obj; pg++) {
                csd_cost cost;
                rc = csd_exec_feed(t, pg, obj + pg * 64, 64, &cost, &more);
            }
            csd_cost cost;
            if (!rc && !more) rc = csd_exec_finish(t, &cost);
            if (rc && !csd_exec_error(t)[0]) abort();
        }
        csd_exec_destroy(t);
    } else if (!err[0]) {
        abort();
    }
    csd_outbuf_free(&ob);
    csd_user_tasklet_put(u);
    csd_sandbox_forget(sb, "fuzz");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static csd_sandbox *sb;
    if (!sb) {
        csd_sandbox_limits lim = { .memory_bytes = 4u << 20, .fuel_per_call = 200000, .cycles_per_kfuel = 1000,
                                   .stack_bytes = 256u << 10, .trusted_dir = "", .output_buffer_bytes = 1 << 16 };
        if (csd_sandbox_create(&sb, &lim)) abort();
    }
    if (size < 1) return 0;
    int mode = data[0] % 3;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    char err[512] = "";
    csd_program prog;
    if (mode == 0) {
        if (csd_program_decode(p, n, &prog, err, sizeof err)) {
            if (!err[0]) abort();
            return 0;
        }
        if (prog.format == CSD_PROGRAM_WASM) run_program(sb, &prog);
        return 0;
    }
    if (mode == 2) {
#ifdef CSD_HAVE_WASMTIME
        wasm_byte_vec_t wasm;
        wasmtime_error_t *we = wasmtime_wat2wasm((const char *)p, n, &wasm);
        if (we) {
            wasmtime_error_delete(we);
            return 0;
        }
        prog = (csd_program){ .version = 1, .format = CSD_PROGRAM_WASM, .bytes = (const uint8_t *)wasm.data, .len = wasm.size };
        csd_program_hash(prog.bytes, prog.len, prog.hash);
        run_program(sb, &prog);
        wasm_byte_vec_delete(&wasm);
#endif
        return 0;
    }
    prog = (csd_program){ .version = 1, .format = CSD_PROGRAM_WASM, .bytes = p, .len = n };
    csd_program_hash(p, n, prog.hash);
    run_program(sb, &prog);
    return 0;
}
