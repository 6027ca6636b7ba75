#ifndef CDeflate_SHIM_H
#define CDeflate_SHIM_H
#include <libdeflate.h>
#endif
