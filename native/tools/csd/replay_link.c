/* csd replay's way to the device's block namespace. On an image opened in this process: the block
 * C API (smartssd/block.h), which runs the same commands as the BlockSubmit / BlockPoll packets
 * without packing and unpacking every request and completion (that was most of a replay's CPU time
 * outside the device). Through a daemon's socket: the packets. Either way the device sees the same
 * submissions and polls, so the virtual times are the same. */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "smartssd/block.h"

/* Completions taken per call of the C API; a poll that needs more calls again. */
#define CPL_BATCH 4096u

int rlink_init(rlink *l, cli *c, size_t max_submit) {
    memset(l, 0, sizeof *l);
    l->c = c;
    if (c->dev) {
        l->cpl = calloc(CPL_BATCH, sizeof *l->cpl);
        return l->cpl ? 0 : -1;
    }
    l->br = calloc(max_submit ? max_submit : 1, sizeof *l->br);
    l->bp = calloc(max_submit ? max_submit : 1, sizeof *l->bp);
    return l->br && l->bp ? 0 : -1;
}

void rlink_free(rlink *l) {
    free(l->cpl);
    free(l->br);
    free(l->bp);
    memset(l, 0, sizeof *l);
}

static int api_error(rlink *l, int status, const char *err) {
    cli_error(l->c, csd_status_name(status), "%s", err);
    return -1;
}

static int submit_packets(rlink *l, const csd_block_req *q, size_t k) {
    for (size_t i = 0; i < k; i++) {
        Smartssd__V1__BlockRequest *b = &l->br[i];
        smartssd__v1__block_request__init(b);
        b->id = q[i].id;
        b->op = (Smartssd__V1__BlockOp)q[i].op;
        b->lba = q[i].lba;
        b->count = q[i].count;
        b->arrival_ns = q[i].arrival_ns;
        b->fill = q[i].fill;
        b->bytes = q[i].bytes;
        b->zeroes = q[i].zeroes;
        l->bp[i] = b;
    }
    Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
    bs.n_requests = k;
    bs.requests = l->bp;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
    req.block_submit = &bs;
    Smartssd__V1__Response *r = cli_call(l->c, &req, NULL);
    if (!r) return -1;
    l->outstanding = r->block_submit->outstanding;
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

int rlink_submit(rlink *l, const csd_block_req *q, size_t k) {
    if (!l->c->dev) return submit_packets(l, q, k);
    char err[512];
    int st = csd_block_submit(l->c->dev, q, k, err, sizeof err);
    if (st) return api_error(l, st, err);
    l->outstanding = csd_block_outstanding(l->c->dev);
    return 0;
}

static int poll_packets(rlink *l, uint32_t min, uint64_t until, rlink_take_fn take, void *arg) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockPoll bp = SMARTSSD__V1__BLOCK_POLL__INIT;
    bp.min_completions = min;
    bp.until_ns = until;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    req.block_poll = &bp;
    Smartssd__V1__Response *r = cli_call(l->c, &req, NULL);
    if (!r) return -1;
    for (size_t i = 0; i < r->block_poll->n_completions; i++) {
        const Smartssd__V1__BlockCompletion *x = r->block_poll->completions[i];
        csd_block_cpl c = { .id = x->id, .lba = x->lba, .count = x->count, .op = (uint8_t)x->op,
                            .status = (int)x->status, .arrival_ns = x->arrival_ns, .admit_ns = x->admit_ns,
                            .first_flash_ns = x->first_flash_ns, .done_ns = x->done_ns,
                            .flash_ops = x->flash_ops, .submit_ns = x->submit_ns,
                            .flash_done_ns = x->flash_done_ns, .flash_busy_ns = x->flash_busy_ns,
                            .clf_delayed = x->clf_delayed, .dle_delayed = x->dle_delayed };
        take(arg, &c);
    }
    l->outstanding = r->block_poll->outstanding;
    l->now = r->device_clock_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    return 0;
}

/* One BlockPoll(min, until) in calls of at most CPL_BATCH completions each. The device runs until min
 * completions are ready (a min above CPL_BATCH over several calls, each running on from where the last
 * stopped, with nothing submitted between: the same steps), then on to until; the calls go on while a
 * full batch may have left completions behind. */
int rlink_poll(rlink *l, uint32_t min, uint64_t until, rlink_take_fn take, void *arg) {
    if (!l->c->dev) return poll_packets(l, min, until, take, arg);
    csd_device *dev = l->c->dev;
    char err[512];
    uint64_t want = min, t = until;
    for (int call = 0;; call++) {
        size_t got = 0, m = want < CPL_BATCH ? (size_t)want : CPL_BATCH;
        uint64_t u = 0;
        if (t && want <= CPL_BATCH) {
            /* min is within reach of this call: then on to until (once; as a packet runs it, no error
             * when reaching min took the clock past it) */
            if (call == 0 || t > csd_device_clock(dev)) u = t;
            t = 0;
        }
        int st = csd_block_poll(dev, m, u, l->cpl, CPL_BATCH, &got, err, sizeof err);
        if (st) return api_error(l, st, err);
        for (size_t i = 0; i < got; i++) take(arg, &l->cpl[i]);
        want = want > got ? want - got : 0;
        if (got < CPL_BATCH) break;   /* every ready completion taken; min reached or nothing left to run */
    }
    l->outstanding = csd_block_outstanding(dev);
    l->now = csd_device_clock(dev);
    return 0;
}
