#ifndef CZlib_SHIM_H
#define CZlib_SHIM_H
#include <zlib.h>
#endif
