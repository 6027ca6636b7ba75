#include "CBenchPeers.h"

#include <turbojpeg.h>

void *bench_turbojpeg_create(void) {
    return tjInitDecompress();
}

void bench_turbojpeg_destroy(void *handle) {
    if (handle != NULL) tjDestroy(handle);
}

int bench_turbojpeg_decode_rgb(void *handle, const uint8_t *jpeg, size_t length,
                               uint8_t *output, int width, int height) {
    return tjDecompress2(handle, jpeg, (unsigned long)length, output, width, 0, height, TJPF_RGB, 0);
}
