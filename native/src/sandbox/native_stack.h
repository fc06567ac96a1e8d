/* The stack native user tasklets run on (native_stack.c): the calling thread's own tasklet stack of
 * a given size with an unmapped guard below it; a call that overflows it is abandoned. */
#ifndef CSD_SANDBOX_NATIVE_STACK_H
#define CSD_SANDBOX_NATIVE_STACK_H

#include <stdint.h>

/* fn(arg) on this thread's tasklet stack of stack_bytes. 0 when fn returned; -EFAULT when it
 * overflowed the stack (it did not return: what it was doing is abandoned); -ENOMEM or -ENOSYS when
 * the stack or the fault handler could not be set up (fn not called). */
int csd_native_stack_run(uint64_t stack_bytes, void (*fn)(void *), void *arg);

#endif
