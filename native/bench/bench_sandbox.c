/* The user-tasklet sandbox in wall time, without the device's flash model: the built-in weblog-q1
 * against the same query as a user tasklet (WebAssembly in Wasmtime, and the same C as a native .so),
 * each run through the tasklet runtime (runtime/exec.c) over WorldCup98-like records in memory.
 * Also: compiling a program, instantiating it per execution, and one call per page.
 *   bench_sandbox WASM SO RECORDS ENTRY_BYTES REPEATS
 * prints one JSON object (bench/tasklets.py reads it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/exec.h"
#include "sandbox/sandbox.h"

#define PAGE 8192u

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) exit(1);
    fclose(f);
    *len = (size_t)n;
    return b;
}

typedef struct result {
    double wall_s;
    uint64_t cycles, dram;
    char rows[512];
} result;

/* One execution of ops over the whole object. */
static result run(const csd_tasklet_ops *ops, const csd_exec_hooks *hooks, const uint8_t *obj, size_t size,
                  uint32_t entry) {
    result r = { 0 };
    char kv_v[32], err[512];
    snprintf(kv_v, sizeof kv_v, "%u", entry);
    csd_kv kv = { "entry_bytes", kv_v };
    csd_tasklet_args args = { .static_params = &kv, .n_static = 1, .page_bytes = PAGE };
    csd_outbuf ob;
    csd_outbuf_init(&ob, 1 << 20, 0);
    double t0 = now();
    csd_exec *t;
    if (csd_exec_create_hooked(&t, ops, hooks, NULL, &args, &ob, err, sizeof err)) {
        fprintf(stderr, "create: %s\n", err);
        exit(1);
    }
    uint64_t first, last;
    if (csd_exec_begin(t, size, 0, size, PAGE, &first, &last, err, sizeof err)) {
        fprintf(stderr, "begin: %s\n", err);
        exit(1);
    }
    int more = 1;
    for (uint64_t pg = first; more && pg * PAGE < size; pg++) {
        size_t len = size - pg * PAGE < PAGE ? size - pg * PAGE : PAGE;
        csd_cost c;
        if (csd_exec_feed(t, pg, obj + pg * PAGE, len, &c, &more)) {
            fprintf(stderr, "feed: %s\n", csd_exec_error(t));
            exit(1);
        }
        r.cycles += c.cycles;
        r.dram += c.dram_accesses;
    }
    csd_cost c;
    if (csd_exec_finish(t, &c)) {
        fprintf(stderr, "finish: %s\n", csd_exec_error(t));
        exit(1);
    }
    r.cycles += c.cycles;
    r.dram += c.dram_accesses;
    csd_exec_destroy(t);
    r.wall_s = now() - t0;
    /* the rows, as a fingerprint to compare: length-delimited bytes in hex would be long; sum them */
    uint64_t sum = 0;
    for (size_t i = 0; i < ob.len; i++) sum = sum * 131 + ob.data[i];
    snprintf(r.rows, sizeof r.rows, "%zu bytes, fingerprint %llx", ob.len, (unsigned long long)sum);
    csd_outbuf_free(&ob);
    return r;
}

static result best(const csd_tasklet_ops *ops, const csd_exec_hooks *hooks, const uint8_t *obj, size_t size,
                   uint32_t entry, int repeats) {
    result b = run(ops, hooks, obj, size, entry);
    for (int i = 1; i < repeats; i++) {
        result r = run(ops, hooks, obj, size, entry);
        if (r.wall_s < b.wall_s) b = r;
    }
    return b;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s WASM SO RECORDS ENTRY_BYTES REPEATS\n", argv[0]);
        return 2;
    }
    size_t wlen;
    uint8_t *wasm = slurp(argv[1], &wlen);
    const char *so = argv[2];
    size_t records = strtoull(argv[3], NULL, 10);
    uint32_t entry = (uint32_t)strtoul(argv[4], NULL, 10);
    int repeats = atoi(argv[5]);
    size_t size = records * entry;
    uint8_t *obj = calloc(records, entry);
    uint32_t x = 1;
    for (size_t i = 0; i < records; i++) {
        x = x * 1103515245u + 12345u;
        obj[i * entry + 19] = (uint8_t)(x >> 16) & 0x7f;   /* regions 0..3 */
    }

    char trusted[4096];
    snprintf(trusted, sizeof trusted, "%s", so);
    char *slash = strrchr(trusted, '/');
    if (slash) *slash = 0;
    csd_sandbox_limits lim = { .memory_bytes = 64u << 20, .fuel_per_call = 100000000, .cycles_per_kfuel = 1000,
                               .stack_bytes = 512u << 10, .trusted_dir = trusted, .output_buffer_bytes = 64u << 20 };
    csd_sandbox *sb;
    if (csd_sandbox_create(&sb, &lim)) return 1;
    char err[512];
    /* compile: the first check makes the engine; time a second one */
    if (csd_sandbox_check(sb, "q1", CSD_PROGRAM_WASM, wasm, wlen, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t0 = now();
    csd_sandbox_check(sb, "q1", CSD_PROGRAM_WASM, wasm, wlen, err, sizeof err);
    double compile_s = now() - t0;

    csd_program pw = { .version = 1, .format = CSD_PROGRAM_WASM, .bytes = wasm, .len = wlen };
    csd_program_hash(wasm, wlen, pw.hash);
    csd_user_tasklet *uw, *un;
    if (csd_sandbox_load(sb, "q1-wasm", &pw, &uw, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const char *sobase = slash ? slash + 1 : so;
    csd_program pn = { .version = 1, .format = CSD_PROGRAM_NATIVE, .bytes = (const uint8_t *)sobase, .len = strlen(sobase) };
    csd_program_hash(pn.bytes, pn.len, pn.hash);
    if (csd_sandbox_load(sb, "q1-native", &pn, &un, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }

    /* per execution: instantiate + init + destroy, on an empty extent */
    int n_inst = 200;
    csd_kv kv = { "entry_bytes", argv[4] };
    csd_tasklet_args args = { .static_params = &kv, .n_static = 1, .page_bytes = PAGE };
    csd_outbuf ob;
    csd_outbuf_init(&ob, 1 << 20, 0);
    t0 = now();
    for (int i = 0; i < n_inst; i++) {
        csd_exec *t;
        if (csd_exec_create_hooked(&t, csd_user_tasklet_ops(uw), csd_user_tasklet_hooks(uw), NULL, &args, &ob, err, sizeof err))
            return 1;
        csd_exec_destroy(t);
    }
    double inst_s = (now() - t0) / n_inst;
    csd_outbuf_free(&ob);

    result b = best(csd_tasklet_find("weblog-q1"), NULL, obj, size, entry, repeats);
    result w = best(csd_user_tasklet_ops(uw), csd_user_tasklet_hooks(uw), obj, size, entry, repeats);
    result n = best(csd_user_tasklet_ops(un), NULL, obj, size, entry, repeats);
    /* one call per page: records of a whole page each */
    size_t pages = 4096;
    uint8_t *pg = calloc(pages, PAGE);
    result one = best(csd_user_tasklet_ops(uw), csd_user_tasklet_hooks(uw), pg, pages * PAGE, PAGE, repeats);
    result one_b = best(csd_tasklet_find("weblog-q1"), NULL, pg, pages * PAGE, PAGE, repeats);

    printf("{\"records\": %zu, \"entry_bytes\": %u, \"bytes\": %zu, \"wasm_bytes\": %zu,\n"
           " \"compile_s\": %.6f, \"instantiate_s\": %.9f,\n"
           " \"builtin_s\": %.6f, \"wasm_s\": %.6f, \"native_so_s\": %.6f,\n"
           " \"builtin_cycles\": %llu, \"wasm_cycles\": %llu, \"builtin_dram\": %llu, \"wasm_dram\": %llu,\n"
           " \"per_page_call_ns\": %.1f, \"per_page_builtin_ns\": %.1f,\n"
           " \"same_rows\": %s, \"rows\": \"%s\"}\n",
           records, entry, size, wlen, compile_s, inst_s, b.wall_s, w.wall_s, n.wall_s,
           (unsigned long long)b.cycles, (unsigned long long)w.cycles, (unsigned long long)b.dram,
           (unsigned long long)w.dram, one.wall_s / pages * 1e9, one_b.wall_s / pages * 1e9,
           (!strcmp(b.rows, w.rows) && !strcmp(b.rows, n.rows)) ? "true" : "false", w.rows);
    csd_user_tasklet_put(uw);
    csd_user_tasklet_put(un);
    csd_sandbox_destroy(sb);
    free(pg);
    free(obj);
    free(wasm);
    return 0;
}
