#include "util/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

int csd_utf8_valid(const char *s, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0) {
            if (bad) *bad = i;
            return 0;
        }
        i += (size_t)k;
    }
    return 1;
}

size_t csd_utf8_scrub(char *s) {
    size_t n = strlen(s), i = 0, fixed = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k <= 0) {
            s[i++] = '?';
            fixed++;
        } else {
            i += (size_t)k;
        }
    }
    return fixed;
}

void csd_utf8_quote(char *out, size_t outlen, const char *s, size_t n, size_t max_chars) {
    size_t o = 0, i = 0;
    if (!outlen) return;
    out[0] = 0;
    while (i < n && i < max_chars) {
        utf8proc_int32_t cp = -1;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        char tmp[8];
        const char *piece;
        size_t plen;
        if (k <= 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
            /* a control or undecodable byte is shown, never sent raw */
            snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)(uint8_t)s[i]);
            piece = tmp;
            plen = 4;
            k = 1;
            if (cp >= 0x80 && cp < 0xa0) {   /* C1 controls: show every byte of the sequence */
                snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
                plen = 6;
                k = 2;
            }
        } else {
            piece = s + i;
            plen = (size_t)k;
        }
        if (o + plen + 1 > outlen) break;
        memcpy(out + o, piece, plen);
        o += plen;
        i += (size_t)k;
    }
    out[o] = 0;
    if (i < n) snprintf(out + o, outlen - o, "...(%zu bytes)", n);
}
