// FFmpeg (libavformat, libavcodec, libswscale), wrapped thinly for the Memory Palace hub: a video's or
// audio file's duration and a video's poster frame, without a subprocess. Only files, and only the
// container formats a phone records, are opened (format and protocol allow-lists).
#ifndef CFFMPEG_H
#define CFFMPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What `memora_media_probe` finds.
typedef struct {
    /// The duration in milliseconds, -1 when unknown.
    int64_t duration_ms;
    /// The first video stream's size (0 without video).
    int width;
    int height;
    /// Whether the file has a video stream, an audio stream.
    int has_video;
    int has_audio;
    /// The container's short name ("mov,mp4,m4a,3gp,3g2,mj2", "wav"…), NUL-terminated.
    char format[64];
} memora_media_info;

/// Reads the file's container and streams. Returns 0, or a negative FFmpeg error with its text in `error`.
int memora_media_probe(const char *path, memora_media_info *info, char *error, size_t error_size);

/// Decodes the first video frame at or after `at_ms` (the first frame when the file is shorter), scaled
/// to fit `max_side` (never enlarged), as RGB24 rows in a buffer to free with `memora_media_free`.
/// Returns 0, or a negative FFmpeg error with its text in `error`.
int memora_media_poster(const char *path, int max_side, int64_t at_ms, unsigned char **pixels, int *width, int *height,
                        char *error, size_t error_size);

/// Frees a buffer `memora_media_poster` returned.
void memora_media_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
