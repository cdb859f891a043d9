#ifndef EARSHOT_CEBUR128_SHIM_H
#define EARSHOT_CEBUR128_SHIM_H
#include <ebur128.h>
#endif
