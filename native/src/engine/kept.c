/* Pages whose block GC erases after their ppn was resolved and before they were fed: their bytes are
 * copied then (what a device would hold in its DRAM from the read), and fed from the copy. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdlib.h>

/* Keep the bytes of page i of r (its ppn about to be erased). */
static void keep_page(csd_engine *e, csd_isp_req *r, uint64_t i) {
    if (!r->kept) r->kept = calloc(r->cap, sizeof *r->kept);
    if (r->kept && r->kept[i]) return;
    kept_page *k = r->kept ? malloc(sizeof *k + e->p.page_bytes) : NULL;
    if (!k) {
        r->kept_rc = -ENOMEM;   /* nothing to hold the page in: the request's next read fails */
        return;
    }
    k->rc = r->src.read(r->src.arg, r->ppn[i], k->data);
    if (k->rc > 0) k->rc = 0;
    r->kept[i] = k;
    e->st.isp_pages_saved++;
}

void csd_engine_block_erasing(csd_engine *e, uint64_t first_ppn, uint64_t npages) {
    for (csd_isp_req *r = e->head; r; r = r->next) {
        /* pages below fed_next were fed; those at or past issue_next have no ppn yet (batch issue) or
         * none at all (stage mode resolves its pages up to issue_next) */
        if (r->dead || r->released || r->finished) continue;
        uint64_t end = r->issue_next < csd_eng_req_pages(r) ? r->issue_next : csd_eng_req_pages(r);
        for (uint64_t i = r->fed_next; i < end && !r->dead; i++) {
            uint64_t ppn = r->ppn[i];
            if (ppn == CSD_PPN_NONE || ppn < first_ppn || ppn - first_ppn >= npages || r->state[i] == PG_DROPPED)
                continue;
            keep_page(e, r, i);
        }
    }
}

int csd_eng_page_bytes(csd_isp_req *r, uint64_t rel, uint8_t *buf, const uint8_t **data) {
    *data = buf;
    kept_page *k = r->kept ? r->kept[rel] : NULL;
    if (k) {
        *data = k->data;
        return k->rc;
    }
    if (r->kept_rc) return r->kept_rc;
    int rc = 0;
    const uint8_t *in_place = r->src.view ? r->src.view(r->src.arg, r->ppn[rel], &rc) : NULL;
    if (in_place) *data = in_place;
    else if (!rc) rc = r->src.read(r->src.arg, r->ppn[rel], buf);
    return rc;
}

void csd_eng_page_unkeep(csd_isp_req *r, uint64_t rel) {
    if (!r->kept || !r->kept[rel]) return;
    free(r->kept[rel]);
    r->kept[rel] = NULL;
}
