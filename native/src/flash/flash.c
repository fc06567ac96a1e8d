/* Flash timing model: a flash-command scheduler in front of per-chip queues (both pluggable),
 * channels arbitrated FCFS by the time a chip started waiting (ties: lower chip index), and one serial
 * firmware resource. Every decision is made in an event, so the schedule depends only on (params,
 * submissions, their times). */
#include "flash/flash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

enum chip_phase { CHIP_IDLE, CHIP_ARRAY, CHIP_WAIT_CHANNEL, CHIP_XFER, CHIP_PROGRAM, CHIP_ERASE };

typedef struct chip {
    csd_flash *f;
    uint32_t index;          /* chip_global */
    uint8_t phase;
    uint8_t kick_pending;    /* a dispatch event is already scheduled */
    csd_flash_op *cur;       /* op holding the chip */
    uint64_t wait_since;     /* when it began waiting for its channel */
    uint64_t busy_since;
    uint32_t queued;         /* operations in its queue */
    uint32_t queued_reads;   /* of those, reads */
    /* program/erase suspension (flash_suspend) */
    uint64_t op_end;         /* when the program or erase in progress ends (a stale completion is ignored) */
    csd_flash_op *susp;      /* suspended program or erase, resumed when no read is next */
    uint8_t susp_phase;
    uint64_t susp_left;      /* its array time still to go */
    csd_flash_op *held;      /* what the policy chose next while a program or erase was in progress */
} chip;

typedef struct channel {
    csd_flash *f;
    uint8_t busy;
    uint8_t arb_pending;
    uint32_t nwait;
    uint32_t *wait;          /* chips waiting for this channel (at most chips_per_channel) */
    uint32_t xfer_chip;
} channel;

struct csd_flash {
    csd_params p;
    csd_sim *sim;
    uint32_t nchips, nchannels;
    chip *chips;
    channel *channels;
    const csd_chip_sched_ops *policy;
    void *policy_state;
    const csd_fcmd_ops *fcmd;
    void *fcmd_state;
    uint64_t xfer_ns;        /* one page on a channel */
    csd_serial fw;
    /* Ops waiting for or on the firmware. The firmware is one FCFS resource, so their end times are
     * non-decreasing in this list's order: one event per op pops the head. Only the head's event is
     * in the event queue (a saturated firmware kept a hundred more there, each making every heap
     * operation deeper); the others wait here as the (end, sequence) each took when pushed, and go
     * in, with that same key, when the one before them has run: the order of events is unchanged. */
    csd_flash_op *fw_head, *fw_tail;
    uint64_t (*fw_keys)[2];  /* (end ns, event sequence) of the ops after the head, in list order */
    size_t fw_khead, fw_kn, fw_kcap;   /* fw_kcap is 0 or a power of two */
    uint64_t next_seq;
    csd_flash_stats st;
    csd_trace *trace;        /* NULL: no timeline */
};

static const char *const PHASE_READ = "read", *const PHASE_XFER = "xfer", *const PHASE_PROGRAM = "program",
                         *const PHASE_ERASE = "erase", *const PHASE_FW = "fw";

static void queue_change(csd_flash *f, chip *c, int delta) {
    c->queued = (uint32_t)((int64_t)c->queued + delta);
    if (f->trace) csd_trace_counter(f->trace, "chip queue", c->index, csd_sim_now(f->sim), c->queued);
}

/* Put op in its chip's queue (the policy orders it) and wake the chip. */
static void chip_enqueue(csd_flash *f, chip *c, csd_flash_op *op, uint64_t now);

static void chip_kick_ev(csd_sim *sim, void *arg);
static void chan_arb_ev(csd_sim *sim, void *arg);

static void sched(csd_flash *f, uint64_t t, csd_sim_fn fn, void *arg) {
    /* The heap grows only past its high-water mark; if even that fails the schedule is lost, so
     * fail loudly rather than silently corrupt virtual time. */
    if (csd_sim_at(f->sim, t, fn, arg) != 0) abort();
}

/* A chip programming or erasing that a read queued for it may suspend (flash_suspend). */
static int suspendable(const chip *c) {
    return c->f->p.flash_suspend && (c->phase == CHIP_PROGRAM || c->phase == CHIP_ERASE) && !c->held &&
           c->queued_reads;
}

static void chip_kick(chip *c) {
    if ((c->phase != CHIP_IDLE && !suspendable(c)) || c->kick_pending) return;
    c->kick_pending = 1;
    sched(c->f, csd_sim_now(c->f->sim), chip_kick_ev, c);
}

static void chan_request(channel *ch) {
    if (ch->busy || ch->arb_pending || ch->nwait == 0) return;
    ch->arb_pending = 1;
    sched(ch->f, csd_sim_now(ch->f->sim), chan_arb_ev, ch);
}

static void chip_wait_channel(chip *c) {
    csd_flash *f = c->f;
    channel *ch = &f->channels[c->index / f->p.chips_per_channel];
    c->phase = CHIP_WAIT_CHANNEL;
    c->wait_since = csd_sim_now(f->sim);
    ch->wait[ch->nwait++] = c->index;
    chan_request(ch);
}

static void chip_release(chip *c) {
    csd_flash *f = c->f;
    f->st.chip_busy_ns += csd_sim_now(f->sim) - c->busy_since;
    c->phase = CHIP_IDLE;
    c->cur = NULL;
    f->fcmd->chip_idle(f->fcmd_state, c->index, csd_sim_now(f->sim));
    chip_kick(c);
}

static void fw_push(csd_flash *f, csd_flash_op *op);

uint32_t csd_flash_chip_of(const csd_flash *f, const csd_flash_op *op) {
    csd_addr a;
    csd_ppn_decode(&f->p, op->ppn, &a);
    return a.chip_global % f->nchips;
}

int csd_flash_chip_idle(const csd_flash *f, uint32_t chip) {
    return chip < f->nchips && f->chips[chip].phase == CHIP_IDLE;
}

void csd_flash_kick(const csd_flash *f, uint32_t chip) {
    /* the chip's own state, not the model's parameters: a policy holds the model const */
    if (chip < f->nchips) chip_kick(&((csd_flash *)f)->chips[chip]);
}

static void chip_array_done_ev(csd_sim *sim, void *arg) {
    (void)sim;
    chip_wait_channel(arg);
}

/* Program or erase finished: the op completes here, at its exact time. */
static void chip_op_done_ev(csd_sim *sim, void *arg) {
    chip *c = arg;
    csd_flash *f = c->f;
    csd_flash_op *op = c->cur;
    if ((c->phase != CHIP_PROGRAM && c->phase != CHIP_ERASE) || csd_sim_now(sim) != c->op_end)
        return;   /* it was suspended: it ends later, in the event its resumption scheduled */
    if (op->kind == CSD_FLASH_ERASE) {
        f->st.erases++;
    } else {
        f->st.programs++;
        f->st.bytes_written += f->p.page_bytes;
    }
    chip_release(c);
    op->done(op, csd_sim_now(sim));   /* last: the owner may reuse op */
}

/* The program or erase in progress (or suspended) runs on for its time left from now. */
static void chip_array_start(chip *c, uint8_t phase, uint64_t ns) {
    c->phase = phase;
    c->op_end = csd_sim_now(c->f->sim) + ns;
    sched(c->f, c->op_end, chip_op_done_ev, c);
}

static void chip_kick_ev(csd_sim *sim, void *arg) {
    chip *c = arg;
    csd_flash *f = c->f;
    c->kick_pending = 0;
    uint64_t now = csd_sim_now(sim);
    if (suspendable(c)) {
        /* a read next suspends the program or erase; anything else waits until it ends */
        csd_flash_op *op = f->policy->next(f->policy_state, c->index, now);
        if (!op) return;
        if (op->kind != CSD_FLASH_READ) {
            c->held = op;
            return;
        }
        f->st.chip_busy_ns += now - c->busy_since;
        f->st.suspends++;
        c->susp = c->cur;
        c->susp_phase = c->phase;
        c->susp_left = c->op_end - now;
        c->held = op;
        c->phase = CHIP_IDLE;
    }
    if (c->phase != CHIP_IDLE) return;
    csd_flash_op *op = c->held;
    c->held = NULL;
    if (!op && c->susp) {
        /* after the reads that suspended it: another read goes first too, anything else waits */
        op = f->policy->next(f->policy_state, c->index, now);
        if (!op || op->kind != CSD_FLASH_READ) {
            c->held = op;
            c->cur = c->susp;
            c->susp = NULL;
            c->busy_since = now;
            chip_array_start(c, c->susp_phase, c->susp_left);
            return;
        }
    }
    if (!op) op = f->policy->next(f->policy_state, c->index, now);
    if (!op) return;
    queue_change(f, c, -1);
    if (op->kind == CSD_FLASH_READ) c->queued_reads--;
    c->cur = op;
    c->busy_since = now;
    switch (op->kind) {
    case CSD_FLASH_READ:
        c->phase = CHIP_ARRAY;
        uint64_t t_r = csd_flash_cell_ns(&f->p, CSD_FLASH_READ, op->ppn);
        if (f->trace) csd_trace_span(f->trace, CSD_TRACK_CHIP, c->index, PHASE_READ, op->req_id, now, now + t_r, op->ppn);
        sched(f, now + t_r, chip_array_done_ev, c);
        break;
    case CSD_FLASH_PROGRAM:
        chip_wait_channel(c);      /* data in first, then the array program */
        break;
    default: {
        uint64_t t_e = csd_flash_cell_ns(&f->p, CSD_FLASH_ERASE, op->ppn);
        if (f->trace) csd_trace_span(f->trace, CSD_TRACK_CHIP, c->index, PHASE_ERASE, op->req_id, now, now + t_e, op->ppn);
        chip_array_start(c, CHIP_ERASE, t_e);
        chip_kick(c);   /* a read waiting may suspend it */
        break;
    }
    }
}

static void chan_xfer_done_ev(csd_sim *sim, void *arg) {
    channel *ch = arg;
    csd_flash *f = ch->f;
    chip *c = &f->chips[ch->xfer_chip];
    csd_flash_op *op = c->cur;
    ch->busy = 0;
    f->st.channel_busy_ns += f->xfer_ns;
    if (op->kind == CSD_FLASH_READ) {
        chip_release(c);           /* the page is out of the chip's register */
        fw_push(f, op);
    } else {
        uint64_t now = csd_sim_now(sim);
        uint64_t t_p = csd_flash_cell_ns(&f->p, CSD_FLASH_PROGRAM, op->ppn);
        if (f->trace) csd_trace_span(f->trace, CSD_TRACK_CHIP, c->index, PHASE_PROGRAM, op->req_id, now, now + t_p, op->ppn);
        chip_array_start(c, CHIP_PROGRAM, t_p);
        chip_kick(c);   /* a read waiting may suspend it */
    }
    chan_request(ch);
}

static void chan_arb_ev(csd_sim *sim, void *arg) {
    channel *ch = arg;
    csd_flash *f = ch->f;
    ch->arb_pending = 0;
    if (ch->busy || ch->nwait == 0) return;
    uint32_t best = 0;
    for (uint32_t i = 1; i < ch->nwait; i++) {
        chip *a = &f->chips[ch->wait[i]], *b = &f->chips[ch->wait[best]];
        if (a->wait_since < b->wait_since || (a->wait_since == b->wait_since && a->index < b->index))
            best = i;
    }
    uint32_t ci = ch->wait[best];
    ch->wait[best] = ch->wait[--ch->nwait];
    ch->busy = 1;
    ch->xfer_chip = ci;
    f->chips[ci].phase = CHIP_XFER;
    uint64_t now = csd_sim_now(sim);
    if (f->trace) {
        const csd_flash_op *op = f->chips[ci].cur;
        csd_trace_span(f->trace, CSD_TRACK_CHIP, ci, PHASE_XFER, op->req_id, now, now + f->xfer_ns, op->ppn);
        csd_trace_span(f->trace, CSD_TRACK_CHANNEL, ci / f->p.chips_per_channel, PHASE_XFER, op->req_id, now,
                       now + f->xfer_ns, ci);
    }
    sched(f, now + f->xfer_ns, chan_xfer_done_ev, ch);
}

/* Head of the firmware list is done: a read completes, a program goes on to its chip's queue. */
static void fw_done_ev(csd_sim *sim, void *arg) {
    csd_flash *f = arg;
    csd_flash_op *op = f->fw_head;
    f->fw_head = op->next;
    if (!f->fw_head) {
        f->fw_tail = NULL;
    } else {
        const uint64_t *k = f->fw_keys[f->fw_khead];
        f->fw_khead = (f->fw_khead + 1) & (f->fw_kcap - 1);
        f->fw_kn--;
        if (csd_sim_at_seq(sim, k[0], k[1], fw_done_ev, f) != 0) abort();   /* as sched() */
    }
    op->next = NULL;
    uint64_t now = csd_sim_now(sim);
    if (op->kind == CSD_FLASH_READ) {
        f->st.reads++;
        f->st.bytes_read += f->p.page_bytes;
        op->done(op, now);
    } else {
        chip_enqueue(f, &f->chips[csd_flash_chip_of(f, op)], op, now);
    }
}

static void chip_enqueue(csd_flash *f, chip *c, csd_flash_op *op, uint64_t now) {
    if (op->kind == CSD_FLASH_READ) c->queued_reads++;
    f->policy->enqueue(f->policy_state, c->index, op, now);
    queue_change(f, c, +1);
    chip_kick(c);
}

static void fw_push(csd_flash *f, csd_flash_op *op) {
    uint64_t end = csd_serial_reserve(&f->fw, csd_sim_now(f->sim), f->p.fw_page_ns);
    if (f->trace) csd_trace_span(f->trace, CSD_TRACK_FIRMWARE, 0, PHASE_FW, op->req_id, end - f->p.fw_page_ns, end, op->ppn);
    op->next = NULL;
    if (!f->fw_tail) {
        f->fw_head = f->fw_tail = op;
        sched(f, end, fw_done_ev, f);
        return;
    }
    if (f->fw_kn == f->fw_kcap) {
        size_t cap = f->fw_kcap ? f->fw_kcap * 2 : 64;
        uint64_t (*k)[2] = malloc(cap * sizeof *k);
        if (!k) abort();   /* as sched(): a lost event would corrupt virtual time */
        for (size_t i = 0; i < f->fw_kn; i++) {
            k[i][0] = f->fw_keys[(f->fw_khead + i) & (f->fw_kcap - 1)][0];
            k[i][1] = f->fw_keys[(f->fw_khead + i) & (f->fw_kcap - 1)][1];
        }
        free(f->fw_keys);
        f->fw_keys = k;
        f->fw_kcap = cap;
        f->fw_khead = 0;
    }
    uint64_t *k = f->fw_keys[(f->fw_khead + f->fw_kn++) & (f->fw_kcap - 1)];
    k[0] = end;
    k[1] = csd_sim_seq_take(f->sim);
    f->fw_tail->next = op;
    f->fw_tail = op;
}

void csd_flash_submit(csd_flash *f, csd_flash_op *op) {
    uint64_t now = csd_sim_now(f->sim);
    op->submit_ns = now;
    op->seq = f->next_seq++;
    op->next = NULL;
    memset(op->chip_scratch, 0, sizeof op->chip_scratch);
    memset(op->fcmd_scratch, 0, sizeof op->fcmd_scratch);
    f->fcmd->submit(f->fcmd_state, op, now);
}

void csd_flash_dispatch(csd_flash *f, csd_flash_op *op) {
    uint64_t now = csd_sim_now(f->sim);
    op->next = NULL;
    if (op->kind == CSD_FLASH_PROGRAM) {
        fw_push(f, op);            /* firmware prepares the page before the chip sees it */
        return;
    }
    if (op->kind != CSD_FLASH_READ) op->kind = CSD_FLASH_ERASE;
    chip_enqueue(f, &f->chips[csd_flash_chip_of(f, op)], op, now);
}

int csd_flash_create_with(csd_flash **out, const csd_params *p, csd_sim *sim,
                          const csd_chip_sched_ops *policy, const csd_fcmd_ops *fcmd, char *err, size_t errlen) {
    *out = NULL;
    if (!policy || !fcmd || !sim || !p->channels || !p->chips_per_channel || !p->dies_per_chip ||
        !p->planes_per_die || !p->pages_per_block || !p->blocks_per_plane || !p->page_bytes) {
        snprintf(err, errlen, "flash: invalid geometry (or no policy)");
        return -EINVAL;
    }
    csd_flash *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->p = *p;
    f->sim = sim;
    f->policy = policy;
    f->nchannels = p->channels;
    f->nchips = p->channels * p->chips_per_channel;
    f->xfer_ns = csd_xfer_ns(p->page_bytes, p->channel_bytes_per_s);
    f->chips = calloc(f->nchips, sizeof *f->chips);
    f->channels = calloc(f->nchannels, sizeof *f->channels);
    if (!f->chips || !f->channels) goto nomem;
    for (uint32_t i = 0; i < f->nchips; i++) {
        f->chips[i].f = f;
        f->chips[i].index = i;
    }
    for (uint32_t i = 0; i < f->nchannels; i++) {
        f->channels[i].f = f;
        f->channels[i].wait = calloc(p->chips_per_channel, sizeof(uint32_t));
        if (!f->channels[i].wait) goto nomem;
    }
    int rc = policy->init(&f->policy_state, p, f->nchips);
    if (rc != 0) {
        f->policy = NULL;
        goto fail;
    }
    if (policy->attach) policy->attach(f->policy_state, f);
    f->fcmd = fcmd;
    rc = fcmd->init(&f->fcmd_state, p, f);
    if (rc != 0) {
        f->fcmd = NULL;
        goto fail;
    }
    *out = f;
    return 0;
nomem:
    f->policy = NULL;
    rc = -ENOMEM;
fail:
    csd_flash_destroy(f);
    snprintf(err, errlen, "flash: %s", rc == -ENOMEM ? "out of memory" : "a policy refused the parameters");
    return rc;
}

void csd_flash_destroy(csd_flash *f) {
    if (!f) return;
    if (f->fcmd && f->fcmd_state) f->fcmd->destroy(f->fcmd_state);
    if (f->policy && f->policy_state) f->policy->destroy(f->policy_state);
    if (f->channels)
        for (uint32_t i = 0; i < f->nchannels; i++) free(f->channels[i].wait);
    free(f->channels);
    free(f->fw_keys);
    free(f->chips);
    free(f);
}

void csd_flash_stats_get(const csd_flash *f, csd_flash_stats *s) {
    *s = f->st;
    s->fw_busy_ns = f->fw.busy_ns;
}

uint64_t csd_flash_page_xfer_ns(const csd_flash *f) { return f->xfer_ns; }

void csd_flash_set_trace(csd_flash *f, csd_trace *t) { f->trace = t; }

uint32_t csd_flash_chip_queued(const csd_flash *f, uint32_t chip) { return chip < f->nchips ? f->chips[chip].queued : 0; }

void csd_flash_reorder(csd_flash *f, const void *owner, uint8_t match) {
    if (f->policy->reorder) f->policy->reorder(f->policy_state, owner, match, csd_sim_now(f->sim));
}

int csd_flash_channel_busy(const csd_flash *f, uint32_t channel) {
    return channel < f->nchannels && f->channels[channel].busy;
}

uint32_t csd_flash_channel_of(const csd_flash *f, uint32_t chip) { return chip / f->p.chips_per_channel; }

void csd_flash_requeue(csd_flash *f, csd_flash_op *op) {
    if (f->fcmd->requeue) f->fcmd->requeue(f->fcmd_state, op, csd_sim_now(f->sim));   /* it knows what it holds */
}

uint64_t csd_flash_now(const csd_flash *f) { return csd_sim_now(f->sim); }

void csd_flash_at(csd_flash *f, uint64_t t, csd_sim_fn fn, void *arg) { sched(f, t, fn, arg); }

uint64_t csd_flash_op_ns(const csd_flash *f, uint8_t kind) {
    if (kind == CSD_FLASH_READ) return f->p.t_read_ns + f->xfer_ns;
    if (kind == CSD_FLASH_PROGRAM) return f->p.t_prog_ns + f->xfer_ns;
    return f->p.t_erase_ns;
}
