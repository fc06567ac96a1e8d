/* The rule for object names. Names are stored in the image and come back in every listing, to C
 * and Java clients and through Hadoop paths, so the device accepts only names that read back the same
 * everywhere:
 *   - 1..CSD_OBJ_NAME_MAX bytes of valid UTF-8 (a Java client cannot even decode anything else);
 *   - no control characters (C0, DEL, C1): they hide in terminals and logs;
 *   - Unicode normalization form C: two names that differ only in normalization ("é" as one code
 *     point or as "e" + a combining accent) would look the same and be two objects, so only the NFC
 *     spelling exists and the other is refused with the NFC form in the message;
 *   - path-shaped: '/' separates components; no empty component (a leading '/' or a '//' run), no
 *     "." or ".." component. One trailing '/' is allowed: Hadoop's directory markers are "dir/".
 * NUL never reaches here: the command layer refuses a string with a NUL byte before decoding. */
#include "ftl/ftl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "util/utf8.h"

static int why_set(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t whylen, const char *fmt, ...) {
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

int csd_name_check(const char *name, size_t len, char *why, size_t whylen) {
    if (!name || len == 0) return why_set(why, whylen, "a name is required");
    if (len > CSD_OBJ_NAME_MAX)
        return why_set(why, whylen, "a name of %zu bytes exceeds the limit of %d bytes", len, CSD_OBJ_NAME_MAX);
    if (memchr(name, 0, len)) return why_set(why, whylen, "a name cannot hold a NUL byte");
    size_t bad;
    if (!csd_utf8_valid(name, len, &bad))
        return why_set(why, whylen, "a name must be UTF-8; byte %zu (0x%02x) is not", bad, (unsigned)(uint8_t)name[bad]);
    int ascii = 1;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)name + i, (utf8proc_ssize_t)(len - i), &cp);
        if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
            return why_set(why, whylen, "a name cannot hold control character U+%04X (at byte %zu)", (unsigned)cp, i);
        if (cp >= 0x80) ascii = 0;
        i += (size_t)k;
    }
    if (name[0] == '/') return why_set(why, whylen, "a name cannot start with '/' (names are relative: 'dir/file')");
    /* components: between slashes; the one after a single trailing '/' is empty and allowed */
    for (size_t s = 0; s < len;) {
        const char *e = memchr(name + s, '/', len - s);
        size_t clen = e ? (size_t)(e - (name + s)) : len - s;
        if (clen == 0) return why_set(why, whylen, "a name cannot hold an empty component ('//' at byte %zu)", s - 1);
        if ((clen == 1 && name[s] == '.') || (clen == 2 && name[s] == '.' && name[s + 1] == '.'))
            return why_set(why, whylen, "a name cannot hold a '%.*s' component", (int)clen, name + s);
        s += clen + 1;
    }
    if (!ascii) {   /* ASCII is always NFC */
        char *z = malloc(len + 1);
        if (!z) return -ENOMEM;
        memcpy(z, name, len);
        z[len] = 0;
        utf8proc_uint8_t *nfc = utf8proc_NFC((const utf8proc_uint8_t *)z);
        free(z);
        if (!nfc) return -ENOMEM;
        int same = strlen((const char *)nfc) == len && !memcmp(nfc, name, len);
        if (!same) {
            char shown[256];
            csd_utf8_quote(shown, sizeof shown, (const char *)nfc, strlen((const char *)nfc), 160);
            free(nfc);
            return why_set(why, whylen, "a name must be in Unicode normalization form C; its NFC spelling is '%s'",
                           shown);
        }
        free(nfc);
    }
    return 0;
}
