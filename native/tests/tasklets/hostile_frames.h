/* Stack attacks shared by the hostile tasklets (hostile.c for WebAssembly, hostile_native.c native). */
#ifndef HOSTILE_FRAMES_H
#define HOSTILE_FRAMES_H

#include <stddef.h>

/* Recursion with 1 KiB frames until the stack runs out: a dense overflow. */
__attribute__((noinline)) static int frames(volatile int n) {
    volatile char buf[1024];
    buf[n & 1023] = (char)n;
    return frames(n + 1) + buf[(n * 7) & 1023];
}

/* Touches a buffer at its first and last byte only, through a pointer the compiler cannot see into. */
__attribute__((noinline)) static int ends(volatile char *b, size_t n, int v) {
    b[n - 1] = (char)v;
    b[0] = (char)v;
    return b[0] + b[n - 1];
}

/* One 8 MiB frame touched only at its two ends: a stack clash, it jumps any guard page. */
__attribute__((noinline)) static int clash(int v) {
    char big[8u << 20];
    return ends(big, sizeof big, v);
}

#endif
