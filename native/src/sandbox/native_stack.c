/* The stack native user tasklets run on: every call into a native program runs on a stack of
 * tasklet_stack_bytes of the calling thread's own, below which lies a guard region that is never
 * mapped. The SDK builds native programs with -fstack-clash-protection, so a frame of any size
 * touches its pages in order and the first one past the stack faults in the guard (a frame larger
 * than the guard cannot jump over it into other memory: a stack clash). The fault is caught on an
 * alternate signal stack and the call abandoned: the tasklet stops with a stack-overflow error and
 * the device keeps serving.
 *
 * The handler is installed on the first native call and chains every fault that is not a tasklet's
 * stack overflow to the handler before it (Wasmtime's, the JVM's, or the default action). */
#include "sandbox/native_stack.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_BYTES (1u << 20)      /* reserved, never mapped */
#define ALT_STACK_BYTES (64u << 10) /* the handler's own stack */

typedef struct nstk {
    uint8_t *map;            /* guard, then the stack */
    size_t stack_bytes;
    void *alt;               /* the alternate signal stack we set, or NULL */
    sigjmp_buf jb;
    volatile sig_atomic_t active;
} nstk;

static __thread nstk *tls;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT, handler_once = PTHREAD_ONCE_INIT;
static struct sigaction old_segv, old_bus;
static int handler_ok;

/* csd_native_call(top, fn, arg): fn(arg) with the stack pointer at top (16-byte aligned); returns
 * when fn does, the caller's stack pointer restored from a callee-saved register. */
void csd_native_call(void *top, void (*fn)(void *), void *arg);
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl csd_native_call\n"
        ".hidden csd_native_call\n"
        ".type csd_native_call,@function\n"
        "csd_native_call:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  mov %rdi, %rsp\n"
        "  mov %rdx, %rdi\n"
        "  call *%rsi\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size csd_native_call, .-csd_native_call\n");
#define HAVE_NATIVE_CALL 1
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl csd_native_call\n"
        ".hidden csd_native_call\n"
        ".type csd_native_call,%function\n"
        "csd_native_call:\n"
        "  stp x29, x30, [sp, #-16]!\n"
        "  mov x29, sp\n"
        "  mov sp, x0\n"
        "  mov x0, x2\n"
        "  blr x1\n"
        "  mov sp, x29\n"
        "  ldp x29, x30, [sp], #16\n"
        "  ret\n"
        ".size csd_native_call, .-csd_native_call\n");
#define HAVE_NATIVE_CALL 1
#else
void csd_native_call(void *top, void (*fn)(void *), void *arg) {
    (void)top;
    fn(arg);   /* no stack switch on this architecture: the thread's own stack and guard */
}
#define HAVE_NATIVE_CALL 0
#endif

static void chain(int sig, siginfo_t *si, void *uc) {
    struct sigaction *o = sig == SIGSEGV ? &old_segv : &old_bus;
    if ((o->sa_flags & SA_SIGINFO) && o->sa_sigaction) {
        o->sa_sigaction(sig, si, uc);
    } else if (!(o->sa_flags & SA_SIGINFO) && o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
        o->sa_handler(sig);
    } else {
        /* the default action: the faulting instruction runs again and the process ends as it would have */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    }
}

static void on_fault(int sig, siginfo_t *si, void *uc) {
    nstk *s = tls;
    uintptr_t a = (uintptr_t)si->si_addr, lo = s ? (uintptr_t)s->map : 0;
    if (s && s->active && a >= lo && a < lo + GUARD_BYTES) {
        s->active = 0;
        siglongjmp(s->jb, 1);
    }
    chain(sig, si, uc);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    handler_ok = sigaction(SIGSEGV, &sa, &old_segv) == 0 && sigaction(SIGBUS, &sa, &old_bus) == 0;
}

static void nstk_free(void *p) {
    nstk *s = p;
    if (!s) return;
    if (s->alt) {
        stack_t off = { .ss_flags = SS_DISABLE };
        stack_t cur;
        if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == s->alt) sigaltstack(&off, NULL);
        free(s->alt);
    }
    if (s->map) munmap(s->map, GUARD_BYTES + s->stack_bytes);
    free(s);
}

static void make_key(void) { pthread_key_create(&key, nstk_free); }

/* This thread's stack of stack_bytes (made, or remade at another size) with its guard, and an
 * alternate signal stack unless the thread has one already. */
static nstk *thread_stack(size_t stack_bytes) {
    nstk *s = tls;
    if (s && s->stack_bytes == stack_bytes) return s;
    pthread_once(&key_once, make_key);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        stack_t cur;
        if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
            stack_t alt = { .ss_sp = malloc(ALT_STACK_BYTES), .ss_size = ALT_STACK_BYTES, .ss_flags = 0 };
            if (!alt.ss_sp || sigaltstack(&alt, NULL) != 0) {
                free(alt.ss_sp);
                free(s);
                return NULL;
            }
            s->alt = alt.ss_sp;
        }
        tls = s;
        pthread_setspecific(key, s);
    }
    if (s->map) munmap(s->map, GUARD_BYTES + s->stack_bytes);
    s->map = mmap(NULL, GUARD_BYTES + stack_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s->map == MAP_FAILED ||
        mprotect(s->map + GUARD_BYTES, stack_bytes, PROT_READ | PROT_WRITE) != 0) {
        if (s->map != MAP_FAILED) munmap(s->map, GUARD_BYTES + stack_bytes);
        s->map = NULL;
        s->stack_bytes = 0;
        return NULL;
    }
    s->stack_bytes = stack_bytes;
    return s;
}

int csd_native_stack_run(uint64_t stack_bytes, void (*fn)(void *), void *arg) {
    if (!HAVE_NATIVE_CALL) {
        fn(arg);
        return 0;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = ((size_t)stack_bytes + page - 1) / page * page;
    if (tls && tls->active) {   /* a native call from inside a native call: already on the tasklet's stack */
        fn(arg);
        return 0;
    }
    pthread_once(&handler_once, install);
    if (!handler_ok) return -ENOSYS;
    nstk *volatile s = thread_stack(bytes);   /* volatile: read again after siglongjmp */
    if (!s) return -ENOMEM;
    if (sigsetjmp(s->jb, 0)) {
        /* back from the handler: the fault's signal is still blocked in this thread */
        sigset_t m;
        sigemptyset(&m);
        sigaddset(&m, SIGSEGV);
        sigaddset(&m, SIGBUS);
        pthread_sigmask(SIG_UNBLOCK, &m, NULL);
        return -EFAULT;
    }
    s->active = 1;
    csd_native_call(s->map + GUARD_BYTES + s->stack_bytes, fn, arg);
    s->active = 0;
    return 0;
}
