#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H
// libtiff over a buffer in memory: TIFFClientOpenExt with read-only callbacks, and the
// error and warning handlers of this one handle (libtiff 4.5), which keep the last message
// instead of printing it. Swift sees only these functions and the source struct.
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <tiffio.h>

typedef struct {
    const unsigned char *data;
    uint64_t size;
    uint64_t offset;
    char message[512];
    int failed;
} memora_tiff_source;

static tmsize_t memora_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    memora_tiff_source *source = (memora_tiff_source *)handle;
    if (count <= 0 || source->offset >= source->size) return 0;
    uint64_t available = source->size - source->offset;
    uint64_t wanted = (uint64_t)count < available ? (uint64_t)count : available;
    memcpy(buffer, source->data + source->offset, (size_t)wanted);
    source->offset += wanted;
    return (tmsize_t)wanted;
}

static tmsize_t memora_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static toff_t memora_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    memora_tiff_source *source = (memora_tiff_source *)handle;
    uint64_t base = whence == SEEK_CUR ? source->offset : whence == SEEK_END ? source->size : 0;
    source->offset = base + offset;
    return source->offset;
}

static int memora_tiff_close(thandle_t handle) { (void)handle; return 0; }

static toff_t memora_tiff_size(thandle_t handle) { return ((memora_tiff_source *)handle)->size; }

static int memora_tiff_map(thandle_t handle, void **base, toff_t *size) {
    memora_tiff_source *source = (memora_tiff_source *)handle;
    *base = (void *)source->data;
    *size = source->size;
    return 1;
}

static void memora_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static int memora_tiff_error(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)module;
    memora_tiff_source *source = (memora_tiff_source *)user;
    vsnprintf(source->message, sizeof source->message, format, arguments);
    source->failed = 1;
    return 1;
}

static int memora_tiff_warning(TIFF *tiff, void *user, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)user; (void)module; (void)format; (void)arguments;
    return 1;  // unknown tags and the like: not worth a word
}

/// Opens the first image of the TIFF in `source`, allocating at most `max_allocation` bytes
/// at once; NULL on failure (message set).
static inline TIFF *memora_tiff_open(memora_tiff_source *source, tmsize_t max_allocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        snprintf(source->message, sizeof source->message, "out of memory");
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, memora_tiff_error, source);
    TIFFOpenOptionsSetWarningHandlerExtR(options, memora_tiff_warning, source);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_allocation);
    TIFF *tiff = TIFFClientOpenExt("memory", "rm", (thandle_t)source, memora_tiff_read, memora_tiff_write, memora_tiff_seek,
                                   memora_tiff_close, memora_tiff_size, memora_tiff_map, memora_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    return tiff;
}

/// Size, whether it carries alpha and whether it is a raw DNG.
static inline void memora_tiff_info(TIFF *tiff, uint32_t *width, uint32_t *height, int *alpha, int *dng) {
    *width = 0; *height = 0;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, height);
    uint16_t extra = 0;
    uint16_t *kinds = NULL;
    *alpha = TIFFGetField(tiff, TIFFTAG_EXTRASAMPLES, &extra, &kinds) && extra > 0 && kinds != NULL
        && (kinds[0] == EXTRASAMPLE_ASSOCALPHA || kinds[0] == EXTRASAMPLE_UNASSALPHA);
    void *version = NULL;
    *dng = TIFFGetField(tiff, TIFFTAG_DNGVERSION, &version) ? 1 : 0;
}

/// Decodes the image as stored (no turn applied) into `raster`, `width` x `height` pixels of
/// R, G, B, A bytes (libtiff's ABGR words, little-endian in memory). 1 on success; 0 with
/// the reason in `source->message`.
static inline int memora_tiff_decode(TIFF *tiff, memora_tiff_source *source, uint32_t *raster, uint32_t width, uint32_t height) {
    char reason[1024] = {0};
    if (!TIFFRGBAImageOK(tiff, reason)) {
        snprintf(source->message, sizeof source->message, "%s", reason);
        return 0;
    }
    TIFFRGBAImage image;
    if (!TIFFRGBAImageBegin(&image, tiff, 1, reason)) {
        snprintf(source->message, sizeof source->message, "%s", reason);
        return 0;
    }
    image.req_orientation = image.orientation;  // the stored order: ImageKit turns it upright
    int ok = TIFFRGBAImageGet(&image, raster, width, height);
    TIFFRGBAImageEnd(&image);
    return ok && !source->failed;
}
#endif
