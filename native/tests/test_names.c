/* Hostile object names: every one refused with INVALID_ARGUMENT and a message that says why (and
 * quotes the name safely), nothing already stored disturbed, the device still serving; the names the
 * rule accepts come back byte for byte after a reopen, and the image checks clean. */
#include <errno.h>

#include "devutil.h"
#include "ftl/ftl.h"
#include "util/utf8.h"
#include "util/varint.h"

static Smartssd__V1__Response *create_raw_name(csd_device *d, const char *name, size_t len) {
    /* by hand, so a NUL inside the name reaches the device as sent */
    size_t n = len + 32;
    uint8_t *b = malloc(n), *p = b;
    uint8_t inner[16], *q = inner;
    *q++ = 0x08;                      /* kind = DATA */
    *q++ = 1;
    *q++ = 0x12;                      /* name */
    q += csd_varint_put(q, len);
    size_t inner_len = (size_t)(q - inner) + len;
    *p++ = 0x52;                      /* Request.create_object = 10 */
    p += csd_varint_put(p, inner_len);
    memcpy(p, inner, (size_t)(q - inner));
    p += q - inner;
    memcpy(p, name, len);
    p += len;
    Smartssd__V1__Response *r = dev_raw(d, b, (size_t)(p - b), NULL);
    free(b);
    return r;
}

static Smartssd__V1__Response *create_named(csd_device *d, const char *name) {
    return create_raw_name(d, name, strlen(name));
}

static Smartssd__V1__Response *rename_to(csd_device *d, uint64_t id, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__RenameObject rn = SMARTSSD__V1__RENAME_OBJECT__INIT;
    rn.object_id = id;
    rn.new_name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_RENAME;
    req.rename = &rn;
    return dev_call(d, &req, NULL);
}

static void refused(csd_device *d, const char *name, size_t len, const char *needle) {
    Smartssd__V1__Response *r = create_raw_name(d, name, len);
    if ((int)r->status != CSD_INVALID_ARGUMENT) {
        fprintf(stderr, "name of %zu bytes: status %s (%s), expected INVALID_ARGUMENT\n", len,
                csd_status_name(r->status), r->message);
        exit(1);
    }
    CHECK_CONTAINS(r->message, needle);
    /* the message itself is clean: valid UTF-8, no raw control bytes, short */
    CHECK(csd_utf8_valid(r->message, strlen(r->message), NULL));
    for (const char *m = r->message; *m; m++) CHECK((uint8_t)*m >= 0x20 && *m != 0x7f);
    CHECK(strlen(r->message) < 1024);
    smartssd__v1__response__free_unpacked(r, NULL);
}

typedef struct listing {
    size_t n;
    char names[32][1100];
    size_t lens[32];
} listing;

static void list_all(csd_device *d, listing *l) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
    req.list = &lo;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    l->n = r->list->n_objects;
    CHECK(l->n <= 32);
    for (size_t i = 0; i < l->n; i++) {
        l->lens[i] = strlen(r->list->objects[i]->name);
        memcpy(l->names[i], r->list->objects[i]->name, l->lens[i] + 1);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
}

static int listed(const listing *l, const char *name) {
    for (size_t i = 0; i < l->n; i++)
        if (l->lens[i] == strlen(name) && !memcmp(l->names[i], name, l->lens[i])) return 1;
    return 0;
}

static void keep_line(void *arg, const char *line) {
    if (!strncmp(line, "problem", 7)) {
        fprintf(stderr, "check: %s\n", line);
        (*(int *)arg)++;
    }
}

int main(void) {
    const char *dir = csd_test_dir("names");
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 0);
    uint64_t keep = dev_create_data(d, "keep/me.txt");
    dev_write(d, keep, 0, "precious", 8);

    /* path shape */
    refused(d, "..", 2, "a '..' component");
    refused(d, ".", 1, "a '.' component");
    refused(d, "a/../b", 6, "a '..' component");
    refused(d, "a/./b", 5, "a '.' component");
    refused(d, "../../etc/passwd", 16, "a '..' component");
    refused(d, "/abs", 4, "cannot start with '/'");
    refused(d, "/", 1, "cannot start with '/'");
    refused(d, "a//b", 4, "empty component");
    refused(d, "a///", 4, "empty component");
    refused(d, "a/b//", 5, "empty component");
    /* NUL: refused before decoding, where protobuf-c would have cut the name to "a" */
    refused(d, "a\0b", 3, "NUL byte at offset 1");
    refused(d, "\0", 1, "NUL byte at offset 0");
    /* control characters: C0, DEL, C1 (U+0085 NEXT LINE), and they are shown escaped */
    refused(d, "a\x01z", 3, "control character U+0001");
    refused(d, "line\nbreak", 10, "'line\\x0abreak'");
    refused(d, "tab\there", 8, "U+0009");
    refused(d, "del\x7f", 4, "U+007F");
    refused(d, "c1\xc2\x85", 4, "U+0085");
    refused(d, "esc\x1b[31mred", 11, "U+001B");
    /* not UTF-8: a stray byte, an overlong '/', a surrogate, beyond U+10FFFF, a cut sequence */
    refused(d, "bad\xff", 4, "byte 3 (0xff) is not");
    refused(d, "\xc0\xaf", 2, "must be UTF-8");
    refused(d, "\xed\xa0\x80", 3, "must be UTF-8");
    refused(d, "\xf4\x90\x80\x80", 4, "must be UTF-8");
    refused(d, "cut\xe2\x82", 5, "must be UTF-8");
    /* length: 64 KiB, and one byte over the limit; the message quotes 64 bytes and the length */
    char *big = malloc(65536);
    memset(big, 'a', 65536);
    refused(d, big, 65536, "65536 bytes exceeds the limit of 1024");
    refused(d, big, 65536, "...(65536 bytes)");
    refused(d, big, 1025, "1025 bytes exceeds");
    /* Unicode normalization twins: NFC "é" is a name, NFD "e" + U+0301 is refused naming the NFC form */
    const char *nfc = "caf\xc3\xa9", *nfd = "cafe\xcc\x81";
    Smartssd__V1__Response *r = create_named(d, nfc);
    EXPECT_STATUS(r, CSD_OK, "");
    refused(d, nfd, strlen(nfd), "normalization form C; its NFC spelling is 'caf\xc3\xa9'");
    /* Hangul: conjoining jamo are the NFD twin of the syllable */
    refused(d, "\xe1\x84\x80\xe1\x85\xa1", 6, "NFC spelling is '\xea\xb0\x80'");
    /* Angstrom sign U+212B is a singleton whose NFC is U+00C5 */
    refused(d, "\xe2\x84\xab", 3, "NFC spelling is '\xc3\x85'");

    /* rename onto a hostile name is refused the same way and the object keeps its name */
    refused(d, "x", 0, "a name is required");
    r = rename_to(d, keep, "../escape");
    EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "rename: name '../escape' refused: a name cannot hold a '..' component");
    r = rename_to(d, keep, "cafe\xcc\x81");
    EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "NFC spelling");

    /* what the rule accepts, stored exactly */
    const char *ok[] = { "dir/", "dir/file", "a.b/..c/d..", "...", "a/.hidden", "emoji-\xf0\x9f\x98\x80",
                         "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e/\xe3\x83\x95\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab",
                         "\xea\xb0\x80", "sp ace", "q'uote\"", NULL };
    for (int i = 0; ok[i]; i++) {
        r = create_named(d, ok[i]);
        if (r->status) fprintf(stderr, "'%s': %s\n", ok[i], r->message);
        EXPECT_STATUS(r, CSD_OK, "");
    }
    /* a 1024-byte name of 2-byte characters (512 x U+00E9) */
    char longname[1025];
    for (int i = 0; i < 512; i++) memcpy(longname + 2 * i, "\xc3\xa9", 2);
    longname[1024] = 0;
    r = create_named(d, longname);
    EXPECT_STATUS(r, CSD_OK, "");
    /* 1023 bytes then half a character: refused as not UTF-8, not cut to a valid prefix */
    char cut[1024];
    memcpy(cut, longname, 1023);
    refused(d, cut, 1023, "must be UTF-8");

    /* strings elsewhere: a NUL in a tasklet parameter is refused naming the field */
    static const char *kv[] = { "pattern=a", NULL };
    r = dev_create_tasklet(d, "grep", kv, NULL);
    EXPECT_STATUS(r, CSD_OK, "");
    {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
        Smartssd__V1__Param p = SMARTSSD__V1__PARAM__INIT, *pp = &p;
        p.key = "pattern";
        p.value = "abcNUL";
        co.kind = SMARTSSD__V1__OBJECT_KIND__TASKLET;
        co.name = "grep";
        co.n_params = 1;
        co.params = &pp;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
        req.create_object = &co;
        size_t n = smartssd__v1__request__get_packed_size(&req);
        uint8_t *b = malloc(n);
        smartssd__v1__request__pack(&req, b);
        uint8_t *z = memmem(b, n, "NUL", 3);
        z[0] = 0;   /* "abc\0UL" */
        r = dev_raw(d, b, n, NULL);
        free(b);
        EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "create_object.params.value: a NUL byte at offset 3");
    }
    /* a reply quoting bytes that are not UTF-8 is still valid UTF-8 (the Java client must decode it) */
    r = dev_create_tasklet(d, "no\xffsuch", NULL, NULL);
    CHECK((int)r->status == CSD_NOT_FOUND);
    CHECK(csd_utf8_valid(r->message, strlen(r->message), NULL));
    CHECK_CONTAINS(r->message, "unknown tasklet 'no?such'");
    smartssd__v1__response__free_unpacked(r, NULL);
    /* lookups take any bytes: a hostile name is simply not there */
    {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
        so.name = "../keep/me.txt";
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        req.stat = &so;
        r = dev_call(d, &req, NULL);
        EXPECT_STATUS(r, CSD_NOT_FOUND, "no object named '../keep/me.txt'");
    }

    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);

    /* round trip through the image: reopen, every accepted name back byte for byte, nothing else */
    char img[4200], err[512];
    snprintf(img, sizeof img, "%s/dev.img", dir);
    int problems = 0;
    CHECK(csd_check(img, keep_line, &problems) == 0);
    CHECK_EQ_INT(problems, 0);
    csd_open_opts o = { .background = 0 };
    CHECK(csd_device_open(&d, img, &o, err, sizeof err) == 0);
    listing l;
    list_all(d, &l);
    CHECK_EQ_U64(l.n, 13);   /* keep/me.txt, café, 10 accepted, the long one */
    CHECK(listed(&l, "keep/me.txt"));
    CHECK(listed(&l, nfc));
    CHECK(listed(&l, longname));
    for (int i = 0; ok[i]; i++) CHECK(listed(&l, ok[i]));
    r = dev_read(d, keep, 0, 100);
    CHECK(r->status == 0 && r->read_object->data.len == 8 && !memcmp(r->read_object->data.data, "precious", 8));
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_close(d) == 0);

    /* the FTL applies the same rule to callers below the command layer */
    CHECK(csd_name_check("a/../b", 6, err, sizeof err) == -EINVAL);
    CHECK_CONTAINS(err, "'..'");
    CHECK(csd_name_check(nfd, strlen(nfd), err, sizeof err) == -EINVAL);
    CHECK(csd_name_check(nfc, strlen(nfc), err, sizeof err) == 0);
    free(big);
    TEST_OK("test_names");
}
