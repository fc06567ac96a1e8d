/* bench_2pm_jobs: the two-stage tasklet under a grep job's shape, through the device's object commands
 * (the path Hadoop and Spark take), while a host workload writes to the same device: a 2pm-preset
 * device holds a log of text lines; the job runs grep2 (start key ERROR, end key timeout) over the log
 * in splits, every split a tasklet run as a map task's, all started at once; then a writer issues
 * write commands of write_kib KiB back to back (one at a time, overwriting a 64 MiB object, so the FTL
 * also migrates), as many as carry half the log's bytes, while the splits run; then every split is
 * polled to its end. For each chip policy: the device time (execute to finish) of the splits with
 * matches (key requests: their results go to the host) and without, the job's (the longest split), and
 * the writer's mean command time. The counts must equal the lines planted
 * under every policy and in both modes (exit 1 otherwise). Also the in-order mode (stages=1, pages
 * through the cores in order) under paq.
 *   bench_2pm_jobs [DIR [MIB [SPLITS [WRITE_KIB]]]]   defaults /tmp, 32, 16, 256
 * CSV rows on stdout: see the header line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/devutil.h"

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Lines of 40..160 bytes of lowercase words (no 'u', so "timeout" only where planted); in the third
 * quarter of the log (a burst of errors, as logs have them) one line in 50 begins "ERROR x timeout"
 * (matches); everywhere one in 50 begins "ERROR" alone (does not). */
static uint8_t *make_log(uint64_t bytes, uint64_t *planted) {
    uint8_t *b = malloc(bytes);
    CHECK(b);
    uint64_t s = 0x109, pos = 0;
    *planted = 0;
    while (pos < bytes) {
        uint64_t len = 40 + rng(&s) % 120, end = pos + len < bytes ? pos + len : bytes, q = pos;
        uint64_t r = rng(&s) % 50;
        int burst = pos >= bytes / 2 && pos < bytes / 4 * 3;
        const char *head = r == 0 && burst ? "ERROR x timeout" : r == 1 ? "ERROR" : "";
        if (*head && end - pos > 20) {
            memcpy(b + q, head, strlen(head));
            q += strlen(head);
            *planted += r == 0 && burst;
        }
        while (q + 1 < end) {
            uint8_t c = (uint8_t)('a' + rng(&s) % 26);
            b[q++] = c == 'u' ? ' ' : c;
        }
        if (q < end) b[q++] = '\n';
        pos = end;
    }
    b[bytes - 1] = '\n';
    return b;
}

typedef struct split { uint64_t output, device_ns, count; int done; } split;

int main(int argc, char **argv) {
    (void)csd_check_failures;
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 32;
    uint32_t nsplit = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 16;
    uint64_t write_kib = argc > 4 ? strtoull(argv[4], NULL, 10) : 256;
    if (!nsplit || nsplit > 256 || !mib) {
        fprintf(stderr, "usage: bench_2pm_jobs [DIR [MIB [SPLITS (1..256) [WRITE_KIB]]]]\n");
        return 2;
    }
    char image[4200], err[512];
    snprintf(image, sizeof image, "%s/2pm-jobs.img", dir);
    unlink(image);
    csd_params p;
    CHECK(csd_params_preset(&p, "2pm") == 0);
    if (csd_format(image, (mib * 8 + 256) << 20, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        return 1;
    }
    uint64_t bytes = mib << 20, planted;
    uint8_t *log = make_log(bytes, &planted);
    uint64_t log_id;
    {
        csd_device *d;
        csd_open_opts o = { .background = 0 };
        if (csd_device_open(&d, image, &o, err, sizeof err)) {
            fprintf(stderr, "open: %s\n", err);
            return 1;
        }
        log_id = dev_create_data(d, "log");
        dev_create_data(d, "writer");
        for (uint64_t off = 0; off < bytes; off += 4u << 20)
            dev_write(d, log_id, off, log + off, bytes - off < (4u << 20) ? bytes - off : (4u << 20));
        CHECK(csd_device_close(d) == 0);
    }
    uint8_t *wbuf = calloc(1, write_kib << 10);
    CHECK(wbuf);
    static const struct { const char *policy; int stages; } RUNS[] = {
        { "paq", 1 }, { "fcfs", 2 }, { "paq", 2 }, { "readfirst", 2 }, { "slacker", 2 }, { "cars", 2 }, { "flin", 2 },
        { "2pm", 2 }, { "2pm+", 2 },
    };
    int bad = 0;
    printf("policy,stages,splits,key_splits,key_split_ns,nonkey_split_ns,job_ns,write_cmds,write_mean_ns,count,"
           "planted\n");
    for (size_t ri = 0; ri < sizeof RUNS / sizeof RUNS[0]; ri++) {
        csd_params ov = p;
        snprintf(ov.chip_scheduler, sizeof ov.chip_scheduler, "%s", RUNS[ri].policy);
        csd_device *d;
        csd_open_opts o = { .override = &ov, .background = 0 };
        if (csd_device_open(&d, image, &o, err, sizeof err)) {
            fprintf(stderr, "open: %s\n", err);
            return 1;
        }
        char stages[16];
        snprintf(stages, sizeof stages, "stages=%d", RUNS[ri].stages);
        const char *kv[] = { "start=ERROR", "end=timeout", "mode=count", stages, NULL };
        Smartssd__V1__Response *r = dev_create_tasklet(d, "grep2", kv, NULL);
        CHECK(r->status == 0);
        uint64_t tasklet = r->create_object->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        Smartssd__V1__Request lreq = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
        so.name = "writer";
        lreq.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        lreq.stat = &so;
        r = dev_call(d, &lreq, NULL);
        CHECK(r->status == 0);
        uint64_t sink = r->stat->info->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        split sp[256];
        uint64_t step = bytes / nsplit;
        for (uint32_t i = 0; i < nsplit; i++) {
            sp[i] = (split){ .output = dev_create_output(d, 0) };
            uint64_t off = i * step, len = i + 1 == nsplit ? bytes - off : step;
            r = dev_execute(d, tasklet, sp[i].output, log_id, off, len, 0);
            if (r->status) fprintf(stderr, "execute: %s\n", r->message);
            CHECK(r->status == 0);
            smartssd__v1__response__free_unpacked(r, NULL);
        }
        uint64_t wcmds = 0, wns = 0, woff = 0, job_end = 0;
        uint64_t nwrites = (bytes / 2 + (write_kib << 10) - 1) / (write_kib << 10);
        for (uint64_t k = 0; k < nwrites; k++) {
            /* each write runs the device until it completes: the splits advance meanwhile */
            Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
            Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
            w.object_id = sink;
            w.offset = woff;
            req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
            req.write_object = &w;
            csd_payload pl = { .in = wbuf, .in_len = write_kib << 10 };
            r = dev_call(d, &req, &pl);
            if (r->status) fprintf(stderr, "write: %s\n", r->message);
            CHECK(r->status == 0);
            wcmds++;
            wns += r->device_ns;
            smartssd__v1__response__free_unpacked(r, NULL);
            woff = (woff + (write_kib << 10)) % (64u << 20);
        }
        for (uint32_t i = 0; i < nsplit; i++) {
            while (!sp[i].done) {
                r = dev_read(d, sp[i].output, 0, 1 << 16);
                CHECK(r->status == 0 && r->read_object && r->read_object->progress);
                Smartssd__V1__Progress *pr = r->read_object->progress;
                const uint8_t *rows = r->read_object->data.data;
                size_t n = r->read_object->data.len;
                if (n > 1) {
                    Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, rows[0], rows + 1);
                    CHECK(row && row->n_values == 1);
                    sp[i].count += (uint64_t)row->values[0]->i;
                    smartssd__v1__row__free_unpacked(row, NULL);
                }
                if (pr->done) {
                    CHECK(pr->status == 0);
                    sp[i].device_ns = pr->device_ns;
                    sp[i].done = 1;
                    if (pr->device_ns > job_end) job_end = pr->device_ns;
                }
                smartssd__v1__response__free_unpacked(r, NULL);
            }
        }
        uint64_t ks = 0, ksum = 0, nsum = 0, count = 0;
        for (uint32_t i = 0; i < nsplit; i++) {
            if (sp[i].count) {
                ks++;
                ksum += sp[i].device_ns;
            } else {
                nsum += sp[i].device_ns;
            }
            count += sp[i].count;
        }
        if (count != planted) {
            fprintf(stderr, "%s stages=%d: counted %" PRIu64 " lines, %" PRIu64 " planted\n", RUNS[ri].policy,
                    RUNS[ri].stages, count, planted);
            bad = 1;
        }
        printf("%s,%d,%u,%" PRIu64 ",%.0f,%.0f,%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64 ",%" PRIu64 "\n", RUNS[ri].policy,
               RUNS[ri].stages, nsplit, ks, ks ? (double)ksum / ks : 0, nsplit > ks ? (double)nsum / (nsplit - ks) : 0,
               job_end, wcmds, wcmds ? (double)wns / wcmds : 0, count, planted);
        fflush(stdout);
        CHECK(csd_device_close(d) == 0);
    }
    free(wbuf);
    free(log);
    unlink(image);
    return bad;
}
