// Keeps libmpg123 quiet inside libsndfile (issue 24, class 6).
//
// libsndfile 1.2 decodes MP3 through libmpg123, whose handles print notes and warnings about
// damaged streams straight to the process's stderr ("Note: Illegal Audio-MPEG-Header …",
// "Warning: Xing stream size off …") unless the handle has MPG123_QUIET — and libsndfile gives
// no way to set it. This file defines mpg123_new: the binary that links Earshot exports it (the
// shared libsndfile refers to it), so libsndfile's call lands here; it creates the handle with
// the real mpg123_new (found with dlsym(RTLD_NEXT)) and adds MPG123_QUIET. Errors still reach
// Earshot through libsndfile's return codes. Nothing else of libmpg123 is touched, and no file
// descriptor is redirected (stderr stays the application's for every other thread).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include "quiet_mpg123.h"

typedef struct mpg123_handle_struct mpg123_handle;

// libmpg123's ABI (mpg123.h, API version 45 and later): enum mpg123_parms MPG123_VERBOSE = 0,
// MPG123_ADD_FLAGS = 2; enum mpg123_param_flags MPG123_QUIET = 0x20; MPG123_ERR = -1.
enum { EARSHOT_MPG123_VERBOSE = 0, EARSHOT_MPG123_ADD_FLAGS = 2, EARSHOT_MPG123_QUIET = 0x20, EARSHOT_MPG123_ERR = -1 };

typedef mpg123_handle *(*new_fn)(const char *, int *);
typedef int (*param_fn)(mpg123_handle *, int, long, double);

static int quieted = 0;

mpg123_handle *mpg123_new(const char *decoder, int *error) {
    new_fn real_new = (new_fn)dlsym(RTLD_NEXT, "mpg123_new");
    if (real_new == NULL) {
        if (error != NULL) *error = EARSHOT_MPG123_ERR;
        return NULL;
    }
    mpg123_handle *handle = real_new(decoder, error);
    param_fn param = (param_fn)dlsym(RTLD_NEXT, "mpg123_param");
    if (handle != NULL && param != NULL) {
        param(handle, EARSHOT_MPG123_ADD_FLAGS, EARSHOT_MPG123_QUIET, 0.0);
        param(handle, EARSHOT_MPG123_VERBOSE, 0, 0.0);
        __atomic_store_n(&quieted, 1, __ATOMIC_RELAXED);
    }
    return handle;
}

int earshot_mpg123_quieted(void) { return __atomic_load_n(&quieted, __ATOMIC_RELAXED); }
