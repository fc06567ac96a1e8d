/* Object table in memory: slots with per-object page maps, found in O(1) by id or by name. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_id(uint64_t x) {   /* splitmix64 finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash_name(const char *s, size_t len) {   /* FNV-1a */
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return hash_id(h);
}

void csd_objtab_init(csd_objtab *t) {
    memset(t, 0, sizeof *t);
    t->next_id = 1;
}

static void obj_release(ftl_obj *o) {
    free(o->name);
    free(o->map);
    free(o->stale);
    memset(o, 0, sizeof *o);
}

void csd_objtab_free(csd_objtab *t) {
    for (uint32_t i = 0; i < t->nslots; i++)
        if (t->slots[i].used) obj_release(&t->slots[i]);
    free(t->slots);
    free(t->free_slots);
    free(t->by_id);
    free(t->by_name);
    memset(t, 0, sizeof *t);
}

static uint64_t home_id(const csd_objtab *t, uint32_t slot) { return hash_id(t->slots[slot].id); }
static uint64_t home_name(const csd_objtab *t, uint32_t slot) { return t->slots[slot].name_hash; }

static void idx_insert(const csd_objtab *t, uint32_t *idx, uint64_t h, uint32_t slot) {
    uint32_t mask = t->idx_cap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        if (idx[i] == NONE32) {
            idx[i] = slot;
            return;
        }
    }
}

/* Backward-shift deletion keeps probe chains intact without tombstone markers. */
static void idx_delete(const csd_objtab *t, uint32_t *idx, uint32_t slot,
                       uint64_t (*home)(const csd_objtab *, uint32_t)) {
    uint32_t mask = t->idx_cap - 1;
    uint32_t i = (uint32_t)home(t, slot) & mask;
    while (idx[i] != slot) {
        if (idx[i] == NONE32) return;
        i = (i + 1) & mask;
    }
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (idx[j] == NONE32) break;
        uint32_t k = (uint32_t)home(t, idx[j]) & mask;
        /* move idx[j] into the hole at i unless its home lies cyclically in (i, j] */
        int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            idx[i] = idx[j];
            i = j;
        }
    }
    idx[i] = NONE32;
}

static int idx_grow(csd_objtab *t, uint32_t want) {
    uint32_t cap = t->idx_cap ? t->idx_cap : 64;
    while (cap < want * 2) cap *= 2;
    if (cap == t->idx_cap) return 0;
    uint32_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -ENOMEM;
    }
    memset(a, 0xff, cap * sizeof *a);
    memset(b, 0xff, cap * sizeof *b);
    free(t->by_id);
    free(t->by_name);
    t->by_id = a;
    t->by_name = b;
    t->idx_cap = cap;
    for (uint32_t s = 0; s < t->nslots; s++) {
        if (!t->slots[s].used) continue;
        idx_insert(t, t->by_id, home_id(t, s), s);
        idx_insert(t, t->by_name, home_name(t, s), s);
    }
    return 0;
}

ftl_obj *csd_objtab_by_id(const csd_objtab *t, uint64_t id) {
    if (!t->idx_cap) return NULL;
    uint32_t mask = t->idx_cap - 1;
    for (uint32_t i = (uint32_t)hash_id(id) & mask; t->by_id[i] != NONE32; i = (i + 1) & mask)
        if (t->slots[t->by_id[i]].id == id) return &t->slots[t->by_id[i]];
    return NULL;
}

ftl_obj *csd_objtab_by_name(const csd_objtab *t, const char *name, size_t len) {
    if (!t->idx_cap) return NULL;
    uint32_t mask = t->idx_cap - 1;
    uint64_t h = hash_name(name, len);
    for (uint32_t i = (uint32_t)h & mask; t->by_name[i] != NONE32; i = (i + 1) & mask) {
        const ftl_obj *o = &t->slots[t->by_name[i]];
        if (o->name_hash == h && o->name_len == len && !memcmp(o->name, name, len)) return (ftl_obj *)o;
    }
    return NULL;
}

int csd_objtab_add(csd_objtab *t, uint64_t id, const char *name, size_t len, uint64_t created_seq, uint32_t *slot) {
    if (idx_grow(t, t->count + 1)) return -ENOMEM;
    char *copy = malloc(len + 1);
    if (!copy) return -ENOMEM;
    memcpy(copy, name, len);
    copy[len] = 0;
    uint32_t s;
    if (t->nfree) {
        s = t->free_slots[--t->nfree];
    } else {
        if (t->nslots == t->cap_slots) {
            uint32_t cap = t->cap_slots ? t->cap_slots * 2 : 16;
            ftl_obj *n = realloc(t->slots, cap * sizeof *n);
            uint32_t *fs = n ? realloc(t->free_slots, cap * sizeof *fs) : NULL;
            if (n) t->slots = n;
            if (!n || !fs) {
                free(copy);
                return -ENOMEM;
            }
            t->free_slots = fs;
            t->cap_slots = cap;
        }
        s = t->nslots++;
    }
    ftl_obj *o = &t->slots[s];
    memset(o, 0, sizeof *o);
    o->used = 1;
    o->id = id;
    o->created_seq = created_seq;
    o->name = copy;
    o->name_len = (uint32_t)len;
    o->name_hash = hash_name(name, len);
    idx_insert(t, t->by_id, home_id(t, s), s);
    idx_insert(t, t->by_name, home_name(t, s), s);
    t->count++;
    if (slot) *slot = s;
    return 0;
}

void csd_objtab_remove(csd_objtab *t, ftl_obj *o) {
    uint32_t s = csd_objtab_slot(t, o);
    idx_delete(t, t->by_id, s, home_id);
    idx_delete(t, t->by_name, s, home_name);
    obj_release(o);
    t->free_slots[t->nfree++] = s;
    t->count--;
}

void csd_objtab_rename(csd_objtab *t, ftl_obj *o, char *name, size_t len) {
    uint32_t s = csd_objtab_slot(t, o);
    idx_delete(t, t->by_name, s, home_name);
    free(o->name);
    o->name = name;
    o->name_len = (uint32_t)len;
    o->name_hash = hash_name(name, len);
    idx_insert(t, t->by_name, home_name(t, s), s);
}

int csd_obj_reserve(ftl_obj *o, uint64_t pages) {
    if (pages <= o->cap) return 0;
    uint64_t cap = o->cap ? o->cap : 16;
    while (cap < pages) cap *= 2;
    if (cap > SIZE_MAX / sizeof(uint64_t)) return -ENOMEM;
    uint64_t *m = realloc(o->map, (size_t)cap * sizeof *m);
    if (!m) return -ENOMEM;
    o->map = m;
    /* the first allocation of the stale counts is calloc's: fresh zero pages, touched only where a
     * page has a stale version (few have) */
    uint32_t *st = o->stale ? realloc(o->stale, (size_t)cap * sizeof *st) : calloc((size_t)cap, sizeof *st);
    if (!st) return -ENOMEM;
    if (o->stale) memset(st + o->cap, 0, (size_t)(cap - o->cap) * sizeof *st);
    o->stale = st;
    memset(m + o->cap, 0xff, (size_t)(cap - o->cap) * sizeof *m);   /* MAP_NONE */
    o->cap = cap;
    return 0;
}

int csd_objtab_load(csd_objtab *t, const csd_meta *m, uint32_t max_objects, char *err, size_t errlen) {
    t->next_id = m->next_id ? m->next_id : 1;
    if (t->next_id > CSD_DATA_ID_LIMIT) {
        snprintf(err, errlen, "object table: next id %" PRIu64 " is beyond the data object ids (below %llu)",
                 t->next_id, (unsigned long long)CSD_DATA_ID_LIMIT);
        return -EBADMSG;
    }
    if (m->n_obj > max_objects) {
        snprintf(err, errlen, "object table holds %u objects, max_objects is %u", m->n_obj, max_objects);
        return -EBADMSG;
    }
    for (uint32_t i = 0; i < m->n_obj; i++) {
        const csd_meta_obj *e = &m->objs[i];
        if (e->id == 0 || e->id >= t->next_id) {
            snprintf(err, errlen, "object table: id %" PRIu64 " is not below next id %" PRIu64, e->id, t->next_id);
            return -EBADMSG;
        }
        if (csd_objtab_by_id(t, e->id)) {
            snprintf(err, errlen, "object table: id %" PRIu64 " appears twice", e->id);
            return -EBADMSG;
        }
        if (csd_objtab_by_name(t, e->name, e->name_len)) {
            snprintf(err, errlen, "object table: name '%.*s' appears twice", (int)e->name_len, e->name);
            return -EBADMSG;
        }
        uint32_t slot;
        if (csd_objtab_add(t, e->id, e->name, e->name_len, e->created_seq, &slot)) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        t->slots[slot].ctime_ms = e->ctime_ms;
        t->slots[slot].mtime_ms = e->mtime_ms;
        t->slots[slot].atime_ms = e->atime_ms;
    }
    return 0;
}
