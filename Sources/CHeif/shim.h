#ifndef CHeif_SHIM_H
#define CHeif_SHIM_H
#include <libheif/heif.h>
#endif
