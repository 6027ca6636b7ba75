/// CDlib: a plain C API over dlib (C++) for face detection, face landmarks and
/// face embeddings.
///
/// Rules of this bridge:
/// - every function is `extern "C"`, takes and returns plain C types, and is
///   prefixed `cdlib_`;
/// - every fallible function returns a `cdlib_status` (`CDLIB_OK`, 0, on
///   success) and, on failure, fills the caller's `cdlib_error` (which may be
///   NULL) with the same status and a message;
/// - no C++ exception ever crosses into the caller (`std::bad_alloc`,
///   `dlib::error`, any `std::exception` and anything else are caught), and dlib's
///   "abort on a second fatal error" rule is switched off in the bridge, so no
///   call aborts the process; arguments are checked before dlib sees them;
/// - objects returned by the bridge are owned by the caller and released with
///   the matching `_destroy` function (NULL is allowed there).
///
/// The pipeline, as dlib's own face recognition example and `face_recognition` run it:
///   1. `cdlib_detect_faces`: dlib's HOG frontal face detector (compiled into dlib,
///      no weights file), optionally on a 2x, 4x... upsampled copy of the image;
///   2. `cdlib_landmarks`: 5 landmarks per face from `shape_predictor_5_face_landmarks.dat`;
///   3. `cdlib_face_embedding(s)`: the face aligned on those landmarks into a 150x150
///      chip (padding 0.25) and run through `dlib_face_recognition_resnet_model_v1.dat`,
///      a 29-layer ResNet giving 128 floats; two faces of one person are usually at a
///      Euclidean distance below 0.6, two people above it (dlib's rule; less reliable
///      for faces under about 60 pixels wide).
///
/// Thread safety (from dlib's code: what each call mutates):
/// - a detector keeps the image it scans in itself: use one detector from one
///   thread at a time (one per thread, or a lock); the first one created takes
///   about 0.2 s (dlib decodes its built-in model), later ones 0.1 ms (copies);
/// - a shape predictor is read-only once loaded: one may be shared by any number
///   of threads;
/// - an encoder (the network) writes its layer outputs into itself on every run:
///   use one encoder from one thread at a time (one per thread, or a lock);
/// - dlib runs the network's matrix products through BLAS, and OpenBLAS runs its
///   own threads inside each product: with one encoder per core, call
///   `cdlib_set_blas_threads(1)` (on 2 cores, two encoders with OpenBLAS's default
///   2 threads each ran 1.5 to 2.4x slower than with 1).
#ifndef CDLIB_H
#define CDLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What went wrong in a bridge call.
typedef enum {
    CDLIB_OK = 0,
    /// A caller's mistake: a null pointer, a size out of range, a channel count
    /// other than 1, 3 or 4, an empty box, degenerate landmarks...
    CDLIB_ERROR_ARGUMENT = 1,
    /// A model file is missing, unreadable, truncated, corrupt or of the wrong kind.
    CDLIB_ERROR_MODEL = 2,
    /// Memory ran out (`std::bad_alloc`).
    CDLIB_ERROR_MEMORY = 3,
    /// dlib raised another `dlib::error`.
    CDLIB_ERROR_DLIB = 4,
    /// Another C++ exception.
    CDLIB_ERROR_UNEXPECTED = 5,
    /// The feature is not available in this process (for example the BLAS
    /// library in use is not OpenBLAS).
    CDLIB_ERROR_UNSUPPORTED = 6,
} cdlib_status;

/// The error out-parameter of every fallible call.
typedef struct {
    cdlib_status status;
    /// A NUL-terminated message in English, truncated to fit.
    char message[256];
} cdlib_error;

/// The largest width or height of an image given to the bridge.
#define CDLIB_MAX_DIMENSION 32768
/// The largest number of pixels the detector scans: width x height after
/// upsampling (4^upsample_count times the image's pixels).
#define CDLIB_MAX_SCAN_PIXELS (1L << 27)
/// The largest `upsample_count` of `cdlib_detect_faces`.
#define CDLIB_MAX_UPSAMPLE 4
/// The most threads `cdlib_detect_faces` splits a scan across.
#define CDLIB_MAX_THREADS 64
/// The largest `jitter` of the embedding calls.
#define CDLIB_MAX_JITTER 100
/// The number of floats in a face embedding.
#define CDLIB_EMBEDDING_SIZE 128
/// The number of landmarks the 5-point predictor gives; points are (x, y) pairs.
#define CDLIB_LANDMARK_COUNT 5

/// An 8-bit image in the caller's memory, top row first; the bridge reads it only
/// during the call and never keeps the pointer.
typedef struct {
    /// The first byte of the top row.
    const uint8_t *pixels;
    /// In pixels, 1...CDLIB_MAX_DIMENSION.
    int32_t width;
    /// In pixels, 1...CDLIB_MAX_DIMENSION.
    int32_t height;
    /// The distance in bytes from one row to the next, at least width x channels.
    size_t bytes_per_row;
    /// 1: gray; 3: R, G, B; 4: R, G, B and a fourth byte that is ignored (RGBA, RGBX).
    /// Gray and RGB are read in place; a 4-channel image is copied into RGB first.
    int32_t channels;
} cdlib_image;

/// A box in an image's pixels, with dlib's convention: right and bottom are
/// inclusive (width = right - left + 1). A detected box may reach a little
/// outside the image.
typedef struct {
    int32_t left;
    int32_t top;
    int32_t right;
    int32_t bottom;
} cdlib_box;

/// One detected face.
typedef struct {
    /// In the pixels of the image given to `cdlib_detect_faces` (upsampling undone).
    cdlib_box box;
    /// The detector's score minus its threshold: >= adjust_threshold; higher is
    /// more certain (0.2 to 3.1 on real photos at the default threshold).
    double confidence;
    /// Which of the HOG detector's sub-detectors fired (0: front, 1: left profile,
    /// 2: right profile, 3: front turned left, 4: front turned right, in dlib 19.24).
    int32_t detector_index;
} cdlib_face;

/// dlib's version, for example "19.24.0".
const char *cdlib_version(void);

// MARK: - Detection

/// dlib's HOG frontal face detector (`get_frontal_face_detector()`).
typedef struct cdlib_detector cdlib_detector;

/// Creates a detector (see the thread-safety note above). Use one detector from
/// one thread at a time.
cdlib_status cdlib_detector_create(cdlib_detector **out, cdlib_error *error);
/// Releases a detector. NULL is allowed.
void cdlib_detector_destroy(cdlib_detector *detector);

/// Finds the faces in `image` (gray or colour; colour is scanned as colour, as dlib
/// does, which finds a few more faces than gray).
///
/// - `upsample_count`: 0...CDLIB_MAX_UPSAMPLE; each step doubles the image's width
///   and height first (dlib's `pyramid_up`), finding faces down to about 40 / 2^n
///   pixels instead of 80 (4x the time per step); boxes are mapped back.
/// - `adjust_threshold`: added to the detector's threshold: 0 is dlib's default, a
///   negative value finds more faces (and more false ones). -INFINITY is allowed; NaN is not.
/// - `threads`: 1...CDLIB_MAX_THREADS. 1 is dlib's own call; more split the scan
///   (each pyramid level's HOG features, then each sub-detector's scan of each
///   level) across that many threads, with the same faces and scores.
/// - `out_faces`: room for `max_faces` faces (may be NULL when `max_faces` is 0),
///   filled with the best first; `*out_count` is set to the number of faces found,
///   which may be more than `max_faces` (then call again with more room).
cdlib_status cdlib_detect_faces(cdlib_detector *detector, const cdlib_image *image, int32_t upsample_count,
                                double adjust_threshold, int32_t threads, cdlib_face *out_faces, size_t max_faces,
                                size_t *out_count, cdlib_error *error);

/// dlib's CNN face detector (max-margin object detection, `mmod_human_face_detector.dat`):
/// slower than HOG, and it finds faces HOG misses (turned, dim, partly hidden). One
/// detector is used from one thread at a time.
typedef struct cdlib_cnn_detector cdlib_cnn_detector;

/// Loads the CNN detector's weights from `path`.
cdlib_status cdlib_cnn_detector_load(const char *path, cdlib_cnn_detector **out, cdlib_error *error);
/// Releases a CNN detector. NULL is allowed.
void cdlib_cnn_detector_destroy(cdlib_cnn_detector *detector);

/// Finds the faces in `image` with the CNN detector, after `upsample_count` doublings
/// (0...CDLIB_MAX_UPSAMPLE; it finds faces of about 40 pixels and more, so each doubling
/// halves that, at 4x the time); `out_faces`, `max_faces` and `out_count` as for
/// `cdlib_detect_faces` (`detector_index` is -1, `confidence` the network's score).
cdlib_status cdlib_cnn_detect_faces(cdlib_cnn_detector *detector, const cdlib_image *image, int32_t upsample_count,
                                    cdlib_face *out_faces, size_t max_faces, size_t *out_count, cdlib_error *error);

// MARK: - Landmarks

/// A shape predictor (`shape_predictor_5_face_landmarks.dat`). Read-only once
/// loaded: any number of threads may share one.
typedef struct cdlib_shape_predictor cdlib_shape_predictor;

/// Loads a 5-landmark shape predictor from a file. A missing, unreadable, truncated
/// or corrupt file, or a predictor of another number of landmarks (such as the
/// 68-landmark one), gives CDLIB_ERROR_MODEL with a message naming the file.
cdlib_status cdlib_shape_predictor_load(const char *path, cdlib_shape_predictor **out, cdlib_error *error);
/// Releases a shape predictor. NULL is allowed.
void cdlib_shape_predictor_destroy(cdlib_shape_predictor *predictor);

/// The 5 landmarks of the face in `box` (a box from `cdlib_detect_faces`, in
/// `image`'s pixels): `out_points` gets x0, y0, x1, y1, ... x4, y4 in `image`'s
/// pixels. With dlib's model, for an upright face: 0 and 1 are the outer and inner
/// corners of the eye on the image's right, 2 and 3 the outer and inner corners of
/// the eye on the image's left, 4 the bottom of the nose. The box needs left < right
/// and top < bottom; it may reach outside the image (pixels there read as black).
cdlib_status cdlib_landmarks(const cdlib_shape_predictor *predictor, const cdlib_image *image, cdlib_box box,
                             int32_t out_points[2 * CDLIB_LANDMARK_COUNT], cdlib_error *error);

// MARK: - Embeddings

/// The face recognition network (`dlib_face_recognition_resnet_model_v1.dat`).
/// Use one encoder from one thread at a time.
typedef struct cdlib_face_encoder cdlib_face_encoder;

/// Loads the face recognition network from a file (22.5 MB, about 50 ms). A missing,
/// unreadable, truncated or corrupt file, or a network of another shape, gives
/// CDLIB_ERROR_MODEL with a message naming the file. dlib's files carry no checksum:
/// garbled weights of the right shape load, so check a file's SHA-256 first.
cdlib_status cdlib_face_encoder_load(const char *path, cdlib_face_encoder **out, cdlib_error *error);
/// Releases an encoder. NULL is allowed.
void cdlib_face_encoder_destroy(cdlib_face_encoder *encoder);

/// The 128-float embedding of one face of `image`, given its 5 landmarks (from
/// `cdlib_landmarks`): the face is aligned into a 150x150 chip with 25% padding
/// (dlib's `get_face_chip_details(shape, 150, 0.25)` and `extract_image_chip`) and run
/// through the network. A gray image is taken as gray RGB.
///
/// `jitter`: 0 (the aligned chip alone, what dlib's `compute_face_descriptor` does
/// by default) or 1...CDLIB_MAX_JITTER: the mean of the embeddings of that many
/// randomly moved, scaled, rotated and mirrored copies of the chip (slower by that
/// factor, slightly more robust). The random sequence restarts on every call, so
/// results are reproducible.
cdlib_status cdlib_face_embedding(cdlib_face_encoder *encoder, const cdlib_image *image,
                                  const int32_t landmarks[2 * CDLIB_LANDMARK_COUNT], int32_t jitter,
                                  float out_embedding[CDLIB_EMBEDDING_SIZE], cdlib_error *error);

/// The embeddings of `count` faces of one image at once (the network runs them in
/// batches, faster than one call per face). `landmarks` holds 10 numbers per face,
/// `out_embeddings` room for 128 floats per face, in the same order. `count` may be 0.
cdlib_status cdlib_face_embeddings(cdlib_face_encoder *encoder, const cdlib_image *image, const int32_t *landmarks,
                                   size_t count, int32_t jitter, float *out_embeddings, cdlib_error *error);

// MARK: - BLAS

/// Writes into `path` (NUL-terminated, truncated to `size`) the file of the BLAS
/// library that dlib's network runs on in this process, for example
/// "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3" (the target of Debian's
/// `libblas.so.3` alternative: an embedding takes about 12 ms with OpenBLAS and
/// 120 ms with the reference BLAS, /usr/lib/x86_64-linux-gnu/blas/libblas.so.3).
/// CDLIB_ERROR_UNSUPPORTED when no CBLAS is loaded.
cdlib_status cdlib_blas_library(char *path, size_t size, cdlib_error *error);

/// Sets how many threads OpenBLAS uses inside each matrix product (1 when the
/// caller runs one encoder per core). CDLIB_ERROR_UNSUPPORTED when the BLAS
/// in use is not OpenBLAS.
cdlib_status cdlib_set_blas_threads(int32_t count, cdlib_error *error);

#ifdef __cplusplus
}
#endif

#endif
