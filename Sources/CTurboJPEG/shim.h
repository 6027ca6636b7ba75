#ifndef CTurboJPEG_SHIM_H
#define CTurboJPEG_SHIM_H
#include <turbojpeg.h>
#endif
