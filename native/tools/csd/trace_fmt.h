/* Block-trace formats for csd replay: one parser per published format, auto-detection, and the loader
 * that turns a file into requests (docs/BLOCK-IO.md, "Trace formats"). Nothing here touches a
 * device, so the fuzz target (fuzz/fuzz_trace.c) drives the same code on arbitrary bytes. */
#ifndef CSD_TRACE_FMT_H
#define CSD_TRACE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    TF_AUTO = 0,
    TF_MSR,        /* SNIA / MSR-Cambridge CSV */
    TF_SYSTOR,     /* SNIA SYSTOR'17 CSV */
    TF_TENCENT,    /* Tencent CBS CSV */
    TF_CSV,        /* timestamp,op,offset,size */
    TF_DISKSIM,    /* DiskSim / MQSim ASCII */
    TF_BLKPARSE,   /* blkparse default text */
    TF_BIOTRACER,  /* BIOTracer (Nexus 5 eMMC) */
    TF_COUNT
} tf_format;

/* A trace's arrivals, relative to its first, stay below the device clock's bound. */
#define TF_MAX_SPAN_NS (1ull << 62)

enum { TF_READ = 1, TF_WRITE = 2, TF_TRIM = 3, TF_FLUSH = 4 };

/* What one line says. kind: */
enum {
    TF_NONE = 0,   /* nothing (blank, comment, header, an event that is not a request) */
    TF_REQ = 1,    /* a request in rec */
    TF_END = 2,    /* the trace ends here (blkparse's summary) */
    TF_REMAP = 3,  /* a blkparse remap (A) event: skipped, counted */
    TF_BAD = -1,   /* a bad line: why says what */
};

typedef struct tf_rec {
    uint64_t t_ns;       /* arrival, in the trace's own clock (ns) */
    uint64_t off, size;  /* bytes */
    uint8_t op;          /* TF_READ .. TF_FLUSH */
    uint8_t event;       /* blkparse: 'Q' or 'D'; else 0 */
    uint8_t ntimes;      /* BIOTracer: the line's four times, for the clock-switch search */
    uint64_t times[4];
} tf_rec;

typedef struct tf_opts {
    tf_format format;        /* TF_AUTO: from the first line that says */
    uint64_t time_unit_ns;   /* 0: the format's own unit; else each timestamp unit in ns (--time-unit) */
    uint64_t limit;          /* stop after this many requests (0: all) */
    int skip_bad;            /* 1: count and skip bad lines (the first ten kept in msgs), 0: stop */
} tf_opts;

typedef struct tf_req {
    uint64_t t_ns;           /* arrival relative to the trace's first (after any clock rebase) */
    uint64_t off, size;      /* bytes */
    uint32_t line;
    uint64_t lba;            /* filled by the replay's accept callback */
    uint32_t count;
    uint8_t op;
} tf_req;

typedef struct tf_clock_switch {
    uint32_t line;           /* the first line with a time on the new clock */
    uint64_t from_ns, to_ns; /* the old clock's last time, the new clock's first */
} tf_clock_switch;

typedef struct tf_trace {
    tf_format format;
    tf_req *r;               /* requests, in arrival order */
    size_t n, cap;
    uint32_t lines;          /* lines read */
    uint64_t skipped;        /* bad lines skipped (skip_bad) */
    uint64_t flushes;        /* zero-length flush requests: counted, not replayed */
    uint64_t remaps;         /* blkparse remap lines skipped */
    uint64_t other_events;   /* blkparse events that are not requests (G I C M ..., the unused Q or D) */
    uint64_t reordered;      /* requests whose line came after a later arrival's (sorted) */
    char event;              /* blkparse: 'Q' or 'D', the events the requests came from */
    tf_clock_switch sw[8];   /* the first clock switches (BIOTracer) */
    size_t nsw;
    uint64_t switches;       /* all of them */
    char msgs[10][300];      /* the first bad lines, with their line numbers (skip_bad) */
    size_t nmsgs;
    /* internal */
    tf_req *dq;              /* blkparse D events, kept until a Q shows up */
    size_t dn, dcap;
    uint64_t *clk;           /* BIOTracer: every time the file holds, for clock switches */
    uint32_t *clk_line;
    size_t cn, ccap;
    uint64_t last_raw[2];    /* the previous arrival (Q and D kept apart) */
    int have_last[2];
    uint64_t flush_ev[2];    /* flushes seen as Q and as D events */
} tf_trace;

/* Called for each request as it is parsed (its byte range final); 0 keeps it, -1 makes the line bad
 * with why. May set lba and count. */
typedef int (*tf_accept_fn)(void *arg, tf_req *q, char *why, size_t wl);

const char *tf_format_name(tf_format f);       /* "msr", "systor", ... */
const char *tf_format_title(tf_format f);      /* "SNIA / MSR-Cambridge CSV", ... */
int tf_format_parse(const char *name);         /* -1 if unknown; "auto" is TF_AUTO */
/* "ns", "us", "ms", "s", "100ns" -> ns per unit; 0 if unknown */
uint64_t tf_time_unit(const char *name);

/* The format a line looks like, TF_AUTO if none. */
tf_format tf_detect(const char *line);
/* One line (no newline) of a format. */
int tf_parse_line(tf_format f, const tf_opts *o, const char *line, uint32_t lineno, tf_rec *out, char *why,
                  size_t wl);

/* Read a whole trace. 0, or -1 with err ("LINE: reason", or why the file cannot be read). */
int tf_load(FILE *in, const tf_opts *o, tf_accept_fn accept, void *arg, tf_trace *tr, char *err, size_t el);
void tf_free(tf_trace *tr);

/* The summary a paper's workload table gives (the DRS paper's Table 1 columns and more). */
typedef struct tf_stats {
    uint64_t requests, reads, writes, trims, flushes;
    uint64_t read_bytes, write_bytes, trim_bytes;
    uint64_t span_ns;        /* first to last arrival */
    double rate_per_s;       /* requests / span */
    double read_mean_bytes, write_mean_bytes, write_pct;
} tf_stats;
void tf_summarize(const tf_trace *tr, tf_stats *s);

/* Shared by the parsers (trace_fmt.c). */
typedef struct tf_tok { const char *s; size_t len; } tf_tok;
size_t tf_split_ws(const char *line, tf_tok *t, size_t max);
size_t tf_split_csv(const char *line, tf_tok *t, size_t max);   /* returns the field count, even past max */
int tf_u64(const tf_tok *t, uint64_t *out);
/* A decimal number of units ("12", "12.5", "1398403999.646690157") -> ns, rounded to the nearest. */
int tf_time(const tf_tok *t, uint64_t unit_ns, uint64_t *out);
int tf_tok_is(const tf_tok *t, const char *word);                /* case-insensitive */
int tf_is_devno(const tf_tok *t);                                 /* blkparse's MAJOR,MINOR */
void tf_why_tok(char *why, size_t wl, const char *what, const tf_tok *t, const char *is_not);

int tf_parse_msr(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_systor(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_tencent(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_csv(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_disksim(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_blkparse(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
int tf_parse_biotracer(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl);
/* BIOTracer's clock switches: found among every time of the file, then each request rebased. */
void tf_biotracer_rebase(tf_trace *tr);

#endif
