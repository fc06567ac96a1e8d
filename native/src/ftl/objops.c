/* Object table operations. Every change is one metadata slot write (A/B), made before the change is
 * applied in memory, so a failed write leaves both the image and the table as they were. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t ftl_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int ftl_meta_save(csd_ftl *f, const ftl_obj *skip, const ftl_obj *ren, const char *name, size_t len) {
    const csd_objtab *t = &f->tab;
    uint32_t n = t->count - (skip ? 1 : 0);
    csd_meta_begin(&f->mbuf, t->next_id, f->next_seq, f->voids, f->n_void, n);
    for (uint32_t s = 0; s < t->nslots; s++) {
        const ftl_obj *o = &t->slots[s];
        if (!o->used || o == skip) continue;
        csd_meta_obj e = { .id = o->id, .created_seq = o->created_seq, .ctime_ms = o->ctime_ms,
                           .mtime_ms = o->mtime_ms, .atime_ms = o->atime_ms,
                           .name_len = (uint16_t)(o == ren ? len : o->name_len), .name = o == ren ? name : o->name };
        csd_meta_add(&f->mbuf, &e);
    }
    /* the other slot: the current one keeps the last good table until this one is complete */
    int slot = 1 - f->meta_slot;
    int rc = csd_meta_write(f->st, slot, f->meta_seq + 1, &f->mbuf);
    if (!rc) rc = csd_store_barrier(f->st);
    if (rc) return rc;
    f->meta_slot = slot;
    f->meta_seq++;
    /* P/E counts ride along with every table save (and close); they are reported, never needed to
     * read data, so a failure here does not fail the table change */
    (void)ftl_wear_save(f);
    return 0;
}

static int name_check(const char *name, size_t *len) {
    if (!name) return -EINVAL;
    *len = strnlen(name, CSD_OBJ_NAME_MAX + 1);
    return (*len == 0 || *len > CSD_OBJ_NAME_MAX) ? -EINVAL : 0;
}

/* A new name: the length check, then the naming rule (names.c). */
static int new_name_check(const char *name, size_t *len) {
    if (name_check(name, len)) return -EINVAL;
    return csd_name_check(name, *len, NULL, 0);
}

static int obj_create(csd_ftl *f, const char *name, size_t len, uint64_t *id);

int csd_ftl_obj_create(csd_ftl *f, const char *name, uint64_t *id) {
    size_t len;
    int nrc = new_name_check(name, &len);
    if (nrc) return nrc;
    return obj_create(f, name, len, id);
}

int ftl_obj_create_hidden(csd_ftl *f, const char *name, uint64_t *id) {
    size_t len;
    if (name_check(name, &len) || (unsigned char)name[0] >= 0x20) return -EINVAL;
    return obj_create(f, name, len, id);
}

static int obj_create(csd_ftl *f, const char *name, size_t len, uint64_t *id) {
    if (f->broken) return -EIO;
    if (csd_objtab_by_name(&f->tab, name, len)) return -EEXIST;
    if (f->tab.count - (f->hidden_id ? 1 : 0) >= f->p.max_objects) return -ENOSPC;
    if (f->tab.next_id >= CSD_DATA_ID_LIMIT) return -ENOSPC;   /* ids are never reused */
    uint64_t nid = f->tab.next_id;
    uint32_t slot;
    if (csd_objtab_add(&f->tab, nid, name, len, f->next_seq, &slot)) return -ENOMEM;
    f->tab.next_id++;
    ftl_obj *o = &f->tab.slots[slot];
    o->ctime_ms = o->mtime_ms = ftl_now_ms();
    int rc = ftl_meta_save(f, NULL, NULL, NULL, 0);
    if (rc == -ENOSPC) rc = -EOVERFLOW;   /* the table does not fit its slot: not the object count */
    if (rc) {
        /* next_id stays advanced: the failed slot write may still have reached the disk */
        csd_objtab_remove(&f->tab, &f->tab.slots[slot]);
        return rc;
    }
    if (id) *id = nid;
    return 0;
}

/* Forget an object in memory once the table without it is on disk. Its stale pages stay PG_STALE;
 * erase looks their id up and finds nothing. */
static void obj_drop(csd_ftl *f, ftl_obj *o) {
    uint64_t np = ftl_obj_pages(f, o);
    for (uint64_t i = 0; i < np && i < o->cap; i++) {
        uint64_t e = o->map[i];
        if (e == MAP_NONE) continue;
        ftl_unmap(f, map_ppn(e), PG_DEAD);
        if (!f->map->forget) (void)f->map->update(f->map_state, f, o->id, i, NULL);
    }
    if (f->map->forget) f->map->forget(f->map_state, f, o->id);
    f->lused -= o->data_pages + o->tomb_pages;
    csd_objtab_remove(&f->tab, o);
}

int csd_ftl_obj_delete(csd_ftl *f, uint64_t id) {
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (f->broken) return -EIO;
    int rc = ftl_meta_save(f, o, NULL, NULL, 0);
    if (rc) return rc;
    obj_drop(f, o);
    return 0;
}

int csd_ftl_obj_rename(csd_ftl *f, uint64_t id, const char *new_name, int replace) {
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    size_t len;
    int nrc = new_name_check(new_name, &len);
    if (nrc) return nrc;
    ftl_obj *other = csd_objtab_by_name(&f->tab, new_name, len);
    if (other == o) return 0;
    if (other && !replace) return -EEXIST;
    if (f->broken) return -EIO;
    char *copy = malloc(len + 1);   /* allocate before the disk changes, so nothing fails after */
    if (!copy) return -ENOMEM;
    memcpy(copy, new_name, len + 1);
    int rc = ftl_meta_save(f, other, o, new_name, len);
    if (rc == -ENOSPC) rc = -EOVERFLOW;
    if (rc) {
        free(copy);
        return rc;
    }
    if (other) obj_drop(f, other);   /* slots are stable: o is unaffected */
    csd_objtab_rename(&f->tab, o, copy, len);
    return 0;
}

static void info_fill(const csd_ftl *f, const ftl_obj *o, csd_obj_info *info) {
    (void)f;
    memset(info, 0, sizeof *info);
    info->id = o->id;
    memcpy(info->name, o->name, o->name_len);
    info->size = o->size;
    info->pages = o->data_pages;
    info->created_seq = o->created_seq;
    info->ctime_ms = o->ctime_ms;
    info->mtime_ms = o->mtime_ms;
    info->atime_ms = o->atime_ms ? o->atime_ms : o->mtime_ms;
}

int csd_ftl_obj_set_times(csd_ftl *f, uint64_t id, uint64_t mtime_ms, uint64_t atime_ms) {
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (f->broken) return -EIO;
    uint64_t m = o->mtime_ms, a = o->atime_ms;
    if (mtime_ms != CSD_TIME_KEEP) o->mtime_ms = mtime_ms;
    if (atime_ms != CSD_TIME_KEEP) o->atime_ms = atime_ms;
    int rc = ftl_meta_save(f, NULL, NULL, NULL, 0);
    if (rc) {
        o->mtime_ms = m;
        o->atime_ms = a;
    }
    return rc;
}

int csd_ftl_obj_stat(const csd_ftl *f, uint64_t id, csd_obj_info *info) {
    const ftl_obj *o = f->hidden_id && id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (info) info_fill(f, o, info);
    return 0;
}

int csd_ftl_obj_find(const csd_ftl *f, const char *name, uint64_t *id) {
    size_t len;
    if (name_check(name, &len)) return -ENOENT;
    const ftl_obj *o = csd_objtab_by_name(&f->tab, name, len);
    if (!o || (f->hidden_id && o->id == f->hidden_id)) return -ENOENT;
    if (id) *id = o->id;
    return 0;
}

static int cmp_name(const void *a, const void *b) {
    const ftl_obj *x = *(const ftl_obj *const *)a, *y = *(const ftl_obj *const *)b;
    return strcmp(x->name, y->name);   /* strcmp compares as unsigned char: byte order */
}

int csd_ftl_obj_list(const csd_ftl *f, const char *prefix, const char *start_after, size_t limit,
                     csd_obj_info **out, int *more) {
    *out = NULL;
    if (more) *more = 0;
    if (!prefix) prefix = "";
    if (!start_after) start_after = "";
    size_t plen = strlen(prefix);
    const csd_objtab *t = &f->tab;
    const ftl_obj **sel = malloc((t->count ? t->count : 1) * sizeof *sel);
    if (!sel) return -ENOMEM;
    size_t n = 0;
    for (uint32_t s = 0; s < t->nslots; s++) {
        const ftl_obj *o = &t->slots[s];
        if (o->used && o->id != f->hidden_id && !strncmp(o->name, prefix, plen) && strcmp(o->name, start_after) > 0)
            sel[n++] = o;
    }
    qsort(sel, n, sizeof *sel, cmp_name);
    if (limit && n > limit) {
        n = limit;
        if (more) *more = 1;
    }
    if (n > INT_MAX) n = INT_MAX;
    csd_obj_info *res = malloc((n ? n : 1) * sizeof *res);
    if (!res) {
        free(sel);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) info_fill(f, sel[i], &res[i]);
    free(sel);
    *out = res;
    return (int)n;
}
