#include "alloc_counter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_int counting = 0;
static atomic_uint_fast64_t count = 0;
static atomic_int seen = 0;

static inline void note(void) {
    atomic_store_explicit(&seen, 1, memory_order_relaxed);
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
}

void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { note(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t align, size_t n) { note(); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n) { note(); return __libc_memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n) {
    note();
    if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p && n) return ENOMEM;
    *out = p;
    return 0;
}

void earshot_alloc_counting(int enabled) { atomic_store(&counting, enabled); }
uint64_t earshot_alloc_count(void) { return atomic_load(&count); }
int earshot_alloc_counter_active(void) {
    /* strdup allocates inside libc: it reaches this malloc only if interposition works. */
    atomic_store(&seen, 0);
    char *p = strdup("x");
    free(p);
    return atomic_load(&seen);
}
