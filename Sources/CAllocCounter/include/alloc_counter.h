#ifndef EARSHOT_ALLOC_COUNTER_H
#define EARSHOT_ALLOC_COUNTER_H
#include <stdint.h>

/* Counts heap allocations made by the whole process while counting is on. Linked into the
 * `earshot` executable only: it defines malloc & co. there, forwarding to glibc's
 * __libc_* entry points, so every allocation of the process (Swift runtime, OpenAL, ours)
 * passes through it. */
void earshot_alloc_counting(int enabled);
uint64_t earshot_alloc_count(void);
/* 1 when this binary's malloc is the one the process uses (interposition worked). */
int earshot_alloc_counter_active(void);

#endif
