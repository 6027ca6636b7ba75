#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
// libjpeg (libjpeg-turbo's libjpeg API) for scanline-by-scanline decoding, which the
// TurboJPEG API cannot do. libjpeg reports a fatal error by calling error_exit, which must
// not return: here it longjmps back into the small C function that made the call, so no
// jump ever crosses a Swift frame. Warnings are kept (the last one) instead of printed.
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr errors;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warnings;
} memora_jpeg_reader;

static void memora_jpeg_error_exit(j_common_ptr info) {
    memora_jpeg_reader *reader = (memora_jpeg_reader *)info;
    (*info->err->format_message)(info, reader->message);
    longjmp(reader->jump, 1);
}

static void memora_jpeg_output_message(j_common_ptr info) {
    memora_jpeg_reader *reader = (memora_jpeg_reader *)info;
    (*info->err->format_message)(info, reader->message);
    reader->warnings += 1;
}

/// Prepares `reader` for `size` bytes at `data` and reads the header. 0 on success, -1 on error (message set).
/// On success or failure, call memora_jpeg_destroy once.
static inline int memora_jpeg_open(memora_jpeg_reader *reader, const unsigned char *data, unsigned long size) {
    memset(reader, 0, sizeof(*reader));
    reader->info.err = jpeg_std_error(&reader->errors);
    reader->errors.error_exit = memora_jpeg_error_exit;
    reader->errors.output_message = memora_jpeg_output_message;
    if (setjmp(reader->jump)) return -1;
    jpeg_create_decompress(&reader->info);
    jpeg_mem_src(&reader->info, data, size);
    jpeg_read_header(&reader->info, TRUE);
    return 0;
}

/// Starts decompressing to RGB at scale 1/`denominator`, with the fast DCT and upsampling
/// when `fast`, the output columns cut to [`*x`, `*x + *width`) (widened by libjpeg to whole
/// blocks: both are updated). 0 on success, -1 on error.
static inline int memora_jpeg_start(memora_jpeg_reader *reader, unsigned int denominator, int fast, JDIMENSION *x, JDIMENSION *width) {
    if (setjmp(reader->jump)) return -1;
    reader->info.scale_num = 1;
    reader->info.scale_denom = denominator;
    reader->info.out_color_space = JCS_RGB;
    if (fast) {
        reader->info.dct_method = JDCT_IFAST;
        reader->info.do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(&reader->info);
    if (*x != 0 || *width != reader->info.output_width) jpeg_crop_scanline(&reader->info, x, width);
    return 0;
}

/// Skips `count` scanlines. The number skipped, or -1 on error.
static inline long memora_jpeg_skip(memora_jpeg_reader *reader, JDIMENSION count) {
    if (setjmp(reader->jump)) return -1;
    return (long)jpeg_skip_scanlines(&reader->info, count);
}

/// Reads up to `count` scanlines into `rows`. The number read, or -1 on error.
static inline long memora_jpeg_read(memora_jpeg_reader *reader, JSAMPARRAY rows, JDIMENSION count) {
    if (setjmp(reader->jump)) return -1;
    return (long)jpeg_read_scanlines(&reader->info, rows, count);
}

/// Releases everything libjpeg allocated (never fails).
static inline void memora_jpeg_destroy(memora_jpeg_reader *reader) {
    jpeg_destroy_decompress(&reader->info);
}

#endif
