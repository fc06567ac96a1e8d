/* blkparse's default text output: "DEV CPU SEQ TIME PID ACTION RWBS [SECTOR + COUNT] [PROCESS]".
 *
 * ACTION is one of blkparse's event letters (Q queued, G get request, I inserted, D issued, C
 * completed, M / F back / front merge, A remap, X split, B bounce, P plug, U / UT unplug, S sleep,
 * R requeue, T timer unplug, m a message...). Requests come from Q events, or from D events when the
 * trace has none (the loader decides, once it has seen the whole file); remaps (A) are counted and
 * skipped, every other event is tolerated and ignored.
 *
 * RWBS is what blkparse (fill_rwbs) and the kernel (blk_fill_rwbs) print: an optional F (pre-flush),
 * then the operation (D discard, W write, R read, N no data; a secure erase is DE), then any of F
 * (FUA), A (read-ahead), B (barrier, older kernels), S (sync), M (metadata), E (secure). A request
 * with data is a read, write or trim; an event with F and no data is a flush. */
#include <string.h>

#include "trace_fmt.h"

int tf_parse_blkparse(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)o;
    (void)lineno;
    tf_tok t[12];
    size_t n = tf_split_ws(line, t, 12);
    if (n == 0) return TF_NONE;
    if ((t[0].len >= 3 && !strncmp(t[0].s, "CPU", 3)) || tf_tok_is(&t[0], "Total"))
        return TF_END;   /* blkparse's per-CPU and total summaries close its output */
    if (n < 6 || !tf_is_devno(&t[0])) {
        snprintf(why, wl, "not a blkparse event line (DEV CPU SEQ TIME PID ACTION RWBS ...)");
        return TF_BAD;
    }
    const tf_tok *act = &t[5];
    if (act->len == 1 && act->s[0] == 'A') return TF_REMAP;
    if (!(act->len == 1 && (act->s[0] == 'Q' || act->s[0] == 'D'))) return TF_NONE;
    if (n < 7) {
        snprintf(why, wl, "a %c event without an RWBS field", act->s[0]);
        return TF_BAD;
    }
    int rd = 0, wr = 0, dsc = 0, fl = 0;
    for (size_t i = 0; i < t[6].len; i++) {
        char ch = t[6].s[i];
        switch (ch) {
        case 'R': rd = 1; break;
        case 'W': wr = 1; break;
        case 'D': dsc = 1; break;
        case 'F': fl = 1; break;
        case 'N': case 'A': case 'B': case 'S': case 'M': case 'E': break;
        default:
            snprintf(why, wl, "RWBS '%.*s' has an unknown flag '%c'", (int)(t[6].len > 16 ? 16 : t[6].len), t[6].s,
                     ch);
            return TF_BAD;
        }
    }
    if (tf_time(&t[3], 1000000000ull, &r->t_ns))
        return tf_why_tok(why, wl, "time", &t[3], "a number of seconds"), TF_BAD;
    r->event = (uint8_t)act->s[0];
    int has_range = n >= 10 && t[8].len == 1 && t[8].s[0] == '+';
    uint64_t sec = 0, cnt = 0;
    if (has_range) {
        if (tf_u64(&t[7], &sec) || sec > UINT64_MAX / 512)
            return tf_why_tok(why, wl, "sector", &t[7], "an integer"), TF_BAD;
        if (tf_u64(&t[9], &cnt) || cnt > UINT32_MAX)
            return tf_why_tok(why, wl, "sector count", &t[9], "an integer"), TF_BAD;
    }
    if (fl && cnt == 0) {
        r->op = TF_FLUSH;   /* a flush: no data */
        return TF_REQ;
    }
    if (!rd && !wr && !dsc) return TF_NONE;   /* N: an event with no data (not a read, write or trim) */
    if (!has_range) {
        snprintf(why, wl, "expected 'SECTOR + COUNT' after the RWBS field");
        return TF_BAD;
    }
    r->op = dsc ? TF_TRIM : wr ? TF_WRITE : TF_READ;
    r->off = sec * 512;
    r->size = cnt * 512;
    return TF_REQ;
}
