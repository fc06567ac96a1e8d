/* libFuzzer target: image recovery from a corrupted image file. The device builds three real images at
 * start (fresh; objects written, trimmed, renamed and deleted; and one whose newest write group lost a
 * record, as a kill -9 leaves it). An input picks one, edits bytes anywhere in the superblock, either
 * metadata slot, any OOB record or data page (or truncates the file), and may re-seal the CRCs the
 * edits broke, so the fields themselves are checked, not just the checksums:
 *   [base][flags][edit...], edit = [area][index u16][offset u16][len][bytes]
 *   flags: 1 = re-seal the superblock CRC, 2 = the metadata slots' CRCs, 4 = edited OOB records' CRCs,
 *          8 = edited data pages' CRCs in their records (then their record CRCs)
 *   area % 6: 0 superblock, 1 slot A, 2 slot B, 3 OOB record #index, 4 data page #index, 5 truncate the
 *             file to index * 4096 bytes
 * Then csd check, open, list, read every object, write one, close and open again. Nothing may crash,
 * leak or read out of bounds, and: an image check calls clean must open; an image that opened and
 * closed cleanly must open again. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"
#include "store/store.h"

typedef struct base {
    uint8_t *bytes;
    size_t len;
    uint32_t *blocks;                /* the 4 KiB blocks that are not all zero */
    size_t n_blocks;
    uint64_t meta_off[2], meta_bytes, oob_off, data_off, pages;
    uint32_t page_bytes;
} base;

static base bases[3];

static Smartssd__V1__Response *cmd(csd_device *d, Smartssd__V1__Request *req, const csd_payload *pl) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1), *out;
    smartssd__v1__request__pack(req, b);
    size_t out_len;
    if (csd_device_command(d, b, n, pl, &out, &out_len)) abort();
    free(b);
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    if (!r) abort();   /* every reply decodes */
    csd_free(out);
    return r;
}

static uint64_t create(csd_device *d, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    Smartssd__V1__Response *r = cmd(d, &req, NULL);
    uint64_t id = r->status ? 0 : r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

static int write_obj(csd_device *d, uint64_t id, uint64_t off, const void *p, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = off;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    csd_payload pl = { .in = p, .in_len = n };
    Smartssd__V1__Response *r = cmd(d, &req, &pl);
    int st = (int)r->status;
    smartssd__v1__response__free_unpacked(r, NULL);
    return st;
}

static void simple(csd_device *d, int which, uint64_t id, uint64_t a, uint64_t b, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__TrimObject t = SMARTSSD__V1__TRIM_OBJECT__INIT;
    Smartssd__V1__DeleteObject del = SMARTSSD__V1__DELETE_OBJECT__INIT;
    Smartssd__V1__RenameObject rn = SMARTSSD__V1__RENAME_OBJECT__INIT;
    if (which == 0) {
        t.object_id = id;
        t.offset = a;
        t.length = b;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_TRIM;
        req.trim = &t;
    } else if (which == 1) {
        del.object_id = id;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
        req.delete_object = &del;
    } else {
        rn.object_id = id;
        rn.new_name = (char *)name;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_RENAME;
        req.rename = &rn;
    }
    smartssd__v1__response__free_unpacked(cmd(d, &req, NULL), NULL);
}

static void load(base *b, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) abort();
    fseek(f, 0, SEEK_END);
    b->len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b->bytes = malloc(b->len);
    if (fread(b->bytes, 1, b->len, f) != b->len) abort();
    fclose(f);
    b->page_bytes = csd_get32(b->bytes + 24);
    b->pages = csd_get64(b->bytes + 40);
    b->meta_bytes = csd_get64(b->bytes + 48);
    b->meta_off[0] = csd_get64(b->bytes + 56);
    b->meta_off[1] = csd_get64(b->bytes + 64);
    b->oob_off = csd_get64(b->bytes + 72);
    b->data_off = csd_get64(b->bytes + 80);
}

static void index_blocks(base *b) {
    static const uint8_t zero[4096];
    b->blocks = malloc((b->len / 4096 + 1) * sizeof *b->blocks);
    b->n_blocks = 0;
    for (size_t w = 0; w < b->len; w += 4096) {
        size_t k = b->len - w < 4096 ? b->len - w : 4096;
        if (memcmp(b->bytes + w, zero, k)) b->blocks[b->n_blocks++] = (uint32_t)(w / 4096);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char path[256], err[512];
    csd_params p;
    csd_params_preset(&p, "tiny");
    p.max_objects = 16;   /* small metadata slots: small images */
    static uint8_t text[40000];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)("abc\ndef\n0123456789"[i % 18]);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "/tmp/csd-fuzz-image.%d.%d.img", (int)getpid(), k);
        if (csd_format(path, 512u << 10, &p, err, sizeof err)) {
            fprintf(stderr, "format: %s\n", err);
            abort();
        }
        if (k > 0) {
            csd_device *d;
            csd_open_opts o = { .background = 0 };
            if (csd_device_open(&d, path, &o, err, sizeof err)) abort();
            uint64_t a = create(d, "a.txt"), b = create(d, "dir/b"), c = create(d, "c");
            write_obj(d, a, 0, text, 9000);
            write_obj(d, b, 0, text + 5, 20000);
            write_obj(d, c, 0, text, 100);
            write_obj(d, a, 4000, text + 7, 3000);   /* superseded versions */
            simple(d, 0, b, 4096, 8192, NULL);      /* tombstones */
            simple(d, 2, c, 0, 0, "renamed");
            simple(d, 1, a, 0, 0, NULL);            /* records of a deleted object */
            uint64_t e = create(d, "e");
            write_obj(d, e, 0, text, 12000);
            csd_device_close(d);
        }
        load(&bases[k], path);
        if (k == 2) {
            /* a kill -9 between a group's records: the newest record's group is now incomplete */
            base *b = &bases[k];
            uint64_t best = 0, at = UINT64_MAX;
            for (uint64_t ppn = 0; ppn < b->pages; ppn++) {
                const uint8_t *r = b->bytes + b->oob_off + ppn * CSD_OOB_BYTES;
                csd_oob o;
                if (csd_oob_decode(r, b->page_bytes, &o) == CSD_OOB_OK && o.seq > best && o.op_pages > 1) {
                    best = o.seq;
                    at = ppn;
                }
            }
            if (at != UINT64_MAX) memset(b->bytes + b->oob_off + at * CSD_OOB_BYTES, 0, CSD_OOB_BYTES);
        }
        unlink(path);
        index_blocks(&bases[k]);
    }
    return 0;
}

static void keep_line(void *arg, const char *line) {
    if (!strncmp(line, "problem", 7)) (*(int *)arg)++;
}

static void reseal_meta(uint8_t *img, size_t len, uint64_t off, uint64_t slot_bytes) {
    if (off + CSD_META_HDR_BYTES > len) return;
    uint8_t *h = img + off;
    uint64_t plen = csd_get64(h + 16);
    if (plen <= slot_bytes - CSD_META_HDR_BYTES && off + CSD_META_HDR_BYTES + plen <= len)
        csd_put32(h + 24, csd_crc32(0, h + CSD_META_HDR_BYTES, (size_t)plen));
    csd_put32(h + 28, csd_crc32(0, h, 28));
}

/* Everything the host can do with a device opened from this image, every reply checked to decode. */
static void exercise(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
    req.list = &lo;
    Smartssd__V1__Response *r = cmd(d, &req, NULL);
    size_t n = r->status ? 0 : r->list->n_objects;
    for (size_t i = 0; i < n && i < 16; i++) {
        Smartssd__V1__Request rq = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = r->list->objects[i]->object_id;
        ro.length = 1 << 16;
        rq.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        rq.read_object = &ro;
        smartssd__v1__response__free_unpacked(cmd(d, &rq, NULL), NULL);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t id = create(d, "fuzz-new");
    if (id) write_obj(d, id, 0, "fresh bytes\n", 12);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    const base *b = &bases[data[0] % 3];
    uint8_t flags = data[1];
    size_t len = b->len;
    static uint8_t *img;   /* reused: a fresh megabyte per input costs more than the device does */
    static size_t img_cap;
    if (img_cap < len) {
        free(img);
        img = malloc(len);
        img_cap = len;
    }
    memcpy(img, b->bytes, len);
    uint64_t oob_dirty[16], data_dirty[16], touched[64];
    int n_oob = 0, n_data = 0, n_touched = 0;
    size_t pos = 2;
    while (pos + 6 <= size) {
        uint8_t area = data[pos] % 6;
        uint16_t index = (uint16_t)(data[pos + 1] | data[pos + 2] << 8);
        uint16_t off = (uint16_t)(data[pos + 3] | data[pos + 4] << 8);
        uint8_t n = data[pos + 5];
        pos += 6;
        if (n > size - pos) n = (uint8_t)(size - pos);
        uint64_t at = UINT64_MAX, room = 0;
        switch (area) {
        case 0: at = off % CSD_SB_BYTES; room = CSD_SB_BYTES - at; break;
        case 1: case 2: at = b->meta_off[area - 1] + off % b->meta_bytes; room = b->meta_bytes - off % b->meta_bytes; break;
        case 3:
            at = b->oob_off + (index % b->pages) * CSD_OOB_BYTES + off % CSD_OOB_BYTES;
            room = CSD_OOB_BYTES - off % CSD_OOB_BYTES;
            if (n_oob < 16) oob_dirty[n_oob++] = index % b->pages;
            break;
        case 4:
            at = b->data_off + (index % b->pages) * b->page_bytes + off % b->page_bytes;
            room = b->page_bytes - off % b->page_bytes;
            if (n_data < 16) data_dirty[n_data++] = index % b->pages;
            break;
        case 5:
            if ((size_t)index * 4096 < len) len = (size_t)index * 4096;
            break;
        }
        if (at != UINT64_MAX && at < len) {
            size_t k = n < room ? n : (size_t)room;
            if (at + k > len) k = len - (size_t)at;
            memcpy(img + at, data + pos, k);
            if (n_touched < 63) {
                touched[n_touched++] = at / 4096;
                touched[n_touched++] = (at + k) / 4096;
            }
        }
        pos += n;
    }
    /* re-seal what the edits broke, so open and check look past the checksums */
    if ((flags & 1) && len >= CSD_SB_HEADER_BYTES) {
        uint32_t tn = csd_get32(img + 96);
        if (tn <= CSD_SB_BYTES - CSD_SB_HEADER_BYTES && CSD_SB_HEADER_BYTES + tn <= len) {
            uint32_t crc = csd_crc32(0, img, 100);
            csd_put32(img + 100, csd_crc32(crc, img + CSD_SB_HEADER_BYTES, tn));
        }
    }
    if (flags & 2)
        for (int s = 0; s < 2; s++) reseal_meta(img, len, b->meta_off[s], b->meta_bytes);
    if (flags & 8)
        for (int i = 0; i < n_data; i++) {
            uint64_t po = b->data_off + data_dirty[i] * b->page_bytes, ro = b->oob_off + data_dirty[i] * CSD_OOB_BYTES;
            if (po + b->page_bytes <= len && ro + CSD_OOB_BYTES <= len) {
                csd_put32(img + ro + 52, csd_crc32(0, img + po, b->page_bytes));
                if (n_oob < 16) oob_dirty[n_oob++] = data_dirty[i];
            }
        }
    if (flags & (4 | 8))
        for (int i = 0; i < n_oob; i++) {
            uint64_t ro = b->oob_off + oob_dirty[i] * CSD_OOB_BYTES;
            if (ro + CSD_OOB_BYTES <= len) csd_put32(img + ro + 60, csd_crc32(0, img + ro, 60));
        }

    /* a file in memory: the device opens it by path, like any image */
    int fd = memfd_create("csd-fuzz-image", MFD_CLOEXEC);
    if (fd < 0) abort();
    /* only the base's non-zero 4 KiB blocks and the edited ones (and the re-sealed records): the rest
     * stays a hole, as in a real sparse image */
    if (ftruncate(fd, (off_t)len)) abort();
    for (size_t i = 0; i < b->n_blocks + (size_t)n_touched + (size_t)n_oob + 2; i++) {
        uint64_t blk;
        if (i < b->n_blocks) blk = b->blocks[i];
        else if (i < b->n_blocks + (size_t)n_touched) blk = touched[i - b->n_blocks];
        else if (i < b->n_blocks + (size_t)n_touched + (size_t)n_oob)
            blk = (b->oob_off + oob_dirty[i - b->n_blocks - n_touched] * CSD_OOB_BYTES) / 4096;
        else blk = b->meta_off[i - b->n_blocks - n_touched - n_oob] / 4096;
        uint64_t w = blk * 4096;
        if (w >= len) continue;
        size_t k = len - w < 4096 ? len - (size_t)w : 4096;
        if (pwrite(fd, img + w, k, (off_t)w) != (ssize_t)k) abort();
    }
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    int problems = 0;
    int crc = csd_check(path, keep_line, &problems);
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    int rc = csd_device_open(&d, path, &o, err, sizeof err);
    if (rc && !err[0]) abort();   /* a refusal says why */
    if (rc == 0 && crc == 0 && problems == 0) {
        /* fine either way */
    }
    if (rc && crc == 0 && problems == 0 && rc != -ENOMEM) {
        fprintf(stderr, "check calls the image clean, but open fails: %s\n", err);
        abort();
    }
    if (rc == 0) {
        exercise(d);
        int close_rc = csd_device_close(d);
        if (close_rc == 0) {
            rc = csd_device_open(&d, path, &o, err, sizeof err);
            if (rc) {
                fprintf(stderr, "opened and closed cleanly, but does not open again: %s\n", err);
                abort();
            }
            exercise(d);
            csd_device_close(d);
        }
    }
    close(fd);
    return 0;
}
