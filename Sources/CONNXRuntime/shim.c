// CONNXRuntime has no code of its own: its header declares ONNX Runtime's C API for Swift, and
// the library is opened at run time with dlopen (see include/CONNXRuntime.h). SwiftPM builds a C
// target only when it has a source file; this one also compiles the header's layout checks.
#include "CONNXRuntime.h"
