#include "CBenchPeers.h"

#include <stdlib.h>
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

int bench_turbojpeg_decode_rgb_new_buffer(void *handle, const uint8_t *jpeg, size_t length) {
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    if (tjDecompressHeader3(handle, jpeg, (unsigned long)length, &width, &height, &subsampling, &colorspace) != 0) {
        return -1;
    }
    unsigned char *output = malloc((size_t)width * (size_t)height * 3);
    if (output == NULL) return -1;
    int status = tjDecompress2(handle, jpeg, (unsigned long)length, output, width, 0, height, TJPF_RGB, 0);
    free(output);
    return status;
}

int bench_turbojpeg_decode_scaled(void *handle, const uint8_t *jpeg, size_t length, int denominator) {
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    if (tjDecompressHeader3(handle, jpeg, (unsigned long)length, &width, &height, &subsampling, &colorspace) != 0) {
        return -1;
    }
    width = (width + denominator - 1) / denominator;
    height = (height + denominator - 1) / denominator;
    unsigned char *output = malloc((size_t)width * (size_t)height * 3);
    if (output == NULL) return -1;
    int status = tjDecompress2(handle, jpeg, (unsigned long)length, output, width, 0, height, TJPF_RGB,
                               TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE);
    free(output);
    return status;
}
