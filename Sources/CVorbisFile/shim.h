#ifndef EARSHOT_CVORBISFILE_SHIM_H
#define EARSHOT_CVORBISFILE_SHIM_H
/* OV_EXCLUDE_STATIC_CALLBACKS: vorbisfile.h would otherwise define static OV_CALLBACKS_*
 * variables in every importer; Earshot passes its own callbacks. */
#define OV_EXCLUDE_STATIC_CALLBACKS 1
#include <vorbis/vorbisfile.h>
#endif
