#ifndef EARSHOT_CVORBISFILE_SHIM_H
#define EARSHOT_CVORBISFILE_SHIM_H
#define OV_EXCLUDE_STATIC_CALLBACKS 1
#include <vorbis/vorbisfile.h>

/* OV_CALLBACKS_* are static variables in vorbisfile.h that Swift sees but cannot rely on;
 * these return the error codes as plain constants. */
static const int EARSHOT_OV_HOLE = OV_HOLE;
static const int EARSHOT_OV_EBADLINK = OV_EBADLINK;
static const int EARSHOT_OV_EINVAL = OV_EINVAL;
#endif
