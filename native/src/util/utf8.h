/* UTF-8 for strings that leave the device: proto3 `string` fields must be valid UTF-8, and a Java
 * client refuses a Response whose strings are not (so an unchecked byte in a message would turn a
 * clear error into an unreadable reply). Decoding is utf8proc's. */
#ifndef CSD_UTIL_UTF8_H
#define CSD_UTIL_UTF8_H

#include <stddef.h>

/* 1 if s[0..n) is valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF); else 0
 * and *bad (when given) is the offset of the first byte that is not. */
int csd_utf8_valid(const char *s, size_t n, size_t *bad);
/* Make the NUL-terminated s valid UTF-8 in place: each byte that does not start a valid sequence
 * becomes '?'. Returns the number of bytes replaced (0: s was valid and is untouched). */
size_t csd_utf8_scrub(char *s);
/* Write s[0..n) to out (outlen bytes, NUL-terminated) for a message: control bytes and bytes that are
 * not UTF-8 as \xNN, at most max_chars source bytes and then "..." with the full length. */
void csd_utf8_quote(char *out, size_t outlen, const char *s, size_t n, size_t max_chars);

#endif
