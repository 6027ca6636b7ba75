// The C++ side of the CDlib bridge. See include/CDlib.h for the rules.

// dlib throws a `fatal_error` for a broken precondition (its DLIB_CASSERT checks)
// and aborts the process when a second one is constructed, taking a caught first
// one for an ignored bug. This bridge checks arguments before dlib sees them and
// turns every exception into a status, so that rule would only turn a reported
// error into a crash of the application: it is switched off here, before any dlib
// header. (It also keeps dlib from installing its own std::terminate handler.)
#define DLIB_NO_ABORT_ON_2ND_FATAL_ERROR

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/revision.h>
#include <dlib/serialize.h>

#include "CDlib.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

// MARK: The face recognition network

// dlib_face_recognition_resnet_model_v1.dat is a 29-layer ResNet (dlib's face
// recognition example describes it): a 7x7 stride-2 convolution and a 3x3 max pool,
// then 14 residual units of two 3x3 convolutions each, in five stages of
// 32, 64, 128, 256 and 256 filters, then an average over the whole map and a
// 128-output fully connected layer without bias, trained with a metric loss.
// Batch normalisation was frozen into `affine` layers for inference.
//
// dlib's layers are composed from the input outwards as nested templates, so each
// alias below reads from its outermost (last) layer back to its input. A model file
// records layer kinds and shapes but not tag numbers, so a wrong wiring could load
// and still compute the wrong thing: the embeddings were checked against dlib's
// Python binding on real photos.
namespace facenet {
using namespace dlib;

/// A unit's main path: 3x3 convolution (stride 1 or 2), affine, ReLU, 3x3
/// convolution, affine. A stride-2 convolution has no padding in dlib.
template <long filters, int stride, typename input>
using main_path = affine<con<filters, 3, 3, 1, 1, relu<affine<con<filters, 3, 3, stride, stride, input>>>>>;

/// relu(main_path(x) + x).
template <long filters, typename input>
using unit = relu<add_prev1<main_path<filters, 1, tag1<input>>>>;

/// relu(main_path(x) with stride 2 + 2x2 average pool of x): the unit that halves
/// the map. `add_prev` pads the shortcut's missing channels with zeros.
template <long filters, typename input>
using halving_unit = relu<add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<main_path<filters, 2, tag1<input>>>>>>>;

template <typename input> using stage1 = unit<32, unit<32, unit<32, input>>>;
template <typename input> using stage2 = unit<64, unit<64, unit<64, halving_unit<64, input>>>>;
template <typename input> using stage3 = unit<128, unit<128, halving_unit<128, input>>>;
template <typename input> using stage4 = unit<256, unit<256, halving_unit<256, input>>>;
template <typename input> using stage5 = halving_unit<256, input>;

using stem = max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>;

using network = loss_metric<fc_no_bias<128, avg_pool_everything<stage5<stage4<stage3<stage2<stage1<stem>>>>>>>>;

/// The chip the network reads: 150x150 pixels, the face with 25% padding.
constexpr unsigned long chip_size = 150;
constexpr double chip_padding = 0.25;
/// Chips per forward pass (dlib's Python binding uses 16).
constexpr size_t batch_size = 16;
}  // namespace facenet

/// dlib's CNN face detector (`mmod_human_face_detector.dat`): three strided 5x5
/// convolutions (16, 32, 32 filters) take the image pyramid down 8x, three 5x5
/// convolutions of 45 filters follow, and a 9x9 one scores each position for the
/// max-margin detection loss. The weights file holds this exact stack.
namespace cnnface {
using namespace dlib;

template <long filters, typename input>
using reduce = relu<affine<con<filters, 5, 5, 2, 2, input>>>;
template <long filters, typename input>
using refine = relu<affine<con<filters, 5, 5, 1, 1, input>>>;

using network = loss_mmod<con<1, 9, 9, 1, 1, refine<45, refine<45, refine<45,
    reduce<32, reduce<32, reduce<16, input_rgb_image_pyramid<pyramid_down<6>>>>>>>>>>;
}  // namespace cnnface

}  // namespace

struct cdlib_detector {
    using scanner_type = dlib::frontal_face_detector::image_scanner_type;
    dlib::frontal_face_detector detector;
    /// The detector's scanner settings and, for each of its sub-detectors (frontal,
    /// left, right, and two rotated), its filters and threshold: what a scan split
    /// across threads needs (see `detect_on_threads`).
    scanner_type scanner;
    std::vector<scanner_type::fhog_filterbank> filters;
    std::vector<double> thresholds;

    explicit cdlib_detector(const dlib::frontal_face_detector &prototype) : detector(prototype) {
        scanner.copy_configuration(detector.get_scanner());
        for (unsigned long index = 0; index < detector.num_detectors(); ++index) {
            filters.push_back(scanner.build_fhog_filterbank(detector.get_w(index)));
            thresholds.push_back(detector.get_w(index)(scanner.get_num_dimensions()));
        }
    }
};

struct cdlib_shape_predictor {
    dlib::shape_predictor predictor;
};

struct cdlib_cnn_detector {
    cnnface::network network;
};

struct cdlib_face_encoder {
    facenet::network network;
};

namespace {

/// A failure the bridge reports itself, with its status: a caller's mistake, a
/// model file that cannot be used, a missing feature.
struct bridge_error : std::exception {
    cdlib_status status;
    std::string text;
    bridge_error(cdlib_status status, std::string message) : status(status), text(std::move(message)) {}
    const char *what() const noexcept override { return text.c_str(); }
};

[[noreturn]] void fail(cdlib_status status, const std::string &message) { throw bridge_error(status, message); }

/// Sets `error` (when not NULL) to `status` and `message` on one line: dlib's
/// serialisation messages nest their causes on indented lines, which become "; ".
cdlib_status set_error(cdlib_error *error, cdlib_status status, const char *message) {
    if (error == nullptr) return status;
    error->status = status;
    size_t length = 0;
    bool pending_break = false;
    for (const char *c = message != nullptr ? message : ""; *c != '\0' && length + 3 < sizeof(error->message); ++c) {
        if (*c == '\n' || *c == '\r') {
            pending_break = length > 0;
            continue;
        }
        if (pending_break) {
            if (*c == ' ' || *c == '\t') continue;
            error->message[length++] = ';';
            error->message[length++] = ' ';
            pending_break = false;
        }
        error->message[length++] = *c;
    }
    error->message[length] = '\0';
    return status;
}

/// Runs `body`, turning every C++ exception into a status and a message.
template <typename Body>
cdlib_status guarded(cdlib_error *error, Body body) noexcept {
    set_error(error, CDLIB_OK, "");
    try {
        body();
        return CDLIB_OK;
    } catch (const bridge_error &e) {
        return set_error(error, e.status, e.what());
    } catch (const std::bad_alloc &) {
        return set_error(error, CDLIB_ERROR_MEMORY, "out of memory in dlib");
    } catch (const dlib::error &e) {
        std::string message = std::string("dlib: ") + e.what();
        return set_error(error, CDLIB_ERROR_DLIB, message.c_str());
    } catch (const std::exception &e) {
        std::string message = std::string("unexpected C++ exception in dlib: ") + e.what();
        return set_error(error, CDLIB_ERROR_UNEXPECTED, message.c_str());
    } catch (...) {
        return set_error(error, CDLIB_ERROR_UNEXPECTED, "unknown C++ exception in dlib");
    }
}

void require(bool condition, const char *message) {
    if (!condition) fail(CDLIB_ERROR_ARGUMENT, message);
}

void check_image(const cdlib_image *image) {
    require(image != nullptr, "the image is NULL");
    require(image->pixels != nullptr, "the image's pixels are NULL");
    require(image->width > 0 && image->height > 0, "the image is empty (width or height is not positive)");
    require(image->width <= CDLIB_MAX_DIMENSION && image->height <= CDLIB_MAX_DIMENSION,
            "the image is too large (width or height above CDLIB_MAX_DIMENSION)");
    require(image->channels == 1 || image->channels == 3 || image->channels == 4,
            "the image's channel count is not 1, 3 or 4");
    require(image->bytes_per_row >= static_cast<size_t>(image->width) * static_cast<size_t>(image->channels),
            "the image's bytes_per_row is smaller than width x channels");
    require(image->bytes_per_row <= static_cast<size_t>(std::numeric_limits<long>::max() / image->height),
            "the image's bytes_per_row is too large");
}

/// A box dlib can use: non-empty, coordinates far from overflowing.
dlib::rectangle checked_box(cdlib_box box) {
    constexpr int32_t limit = 1 << 20;
    require(box.left < box.right && box.top < box.bottom, "the box is empty (it needs left < right and top < bottom)");
    require(box.left > -limit && box.top > -limit && box.right < limit && box.bottom < limit,
            "the box's coordinates are out of range");
    return dlib::rectangle(box.left, box.top, box.right, box.bottom);
}

/// A caller's pixels seen as a dlib image without a copy (dlib's generic image
/// interface, dlib/image_processing/generic_image.h), for reading only: nothing in
/// the bridge writes into the caller's memory.
template <typename pixel>
struct borrowed_image {
    const uint8_t *pixels = nullptr;
    long rows = 0;
    long columns = 0;
    long step = 0;
};

template <typename pixel> long num_rows(const borrowed_image<pixel> &image) { return image.rows; }
template <typename pixel> long num_columns(const borrowed_image<pixel> &image) { return image.columns; }
template <typename pixel> long width_step(const borrowed_image<pixel> &image) { return image.step; }
template <typename pixel> const void *image_data(const borrowed_image<pixel> &image) { return image.pixels; }
template <typename pixel> void *image_data(borrowed_image<pixel> &) {
    fail(CDLIB_ERROR_UNEXPECTED, "internal error: dlib asked to write into the caller's image");
}
template <typename pixel> void set_image_size(borrowed_image<pixel> &, long, long) {
    fail(CDLIB_ERROR_UNEXPECTED, "internal error: dlib asked to resize the caller's image");
}
template <typename pixel> void swap(borrowed_image<pixel> &a, borrowed_image<pixel> &b) { std::swap(a, b); }

}  // namespace

namespace dlib {
template <typename pixel>
struct image_traits<borrowed_image<pixel>> {
    typedef pixel pixel_type;
};
}  // namespace dlib

namespace {

/// Calls `body` with `image` as a dlib image: gray (1 channel) and RGB (3) are
/// borrowed as they are; RGBA/RGBX (4) is copied into RGB (dlib would blend the
/// fourth byte as alpha).
template <typename Body>
void with_dlib_image(const cdlib_image &image, Body body) {
    const long step = static_cast<long>(image.bytes_per_row);
    if (image.channels == 1) {
        body(borrowed_image<unsigned char>{image.pixels, image.height, image.width, step});
    } else if (image.channels == 3) {
        static_assert(sizeof(dlib::rgb_pixel) == 3, "dlib::rgb_pixel is 3 bytes: R, G, B");
        body(borrowed_image<dlib::rgb_pixel>{image.pixels, image.height, image.width, step});
    } else {
        dlib::array2d<dlib::rgb_pixel> rgb(image.height, image.width);
        for (int32_t y = 0; y < image.height; ++y) {
            const uint8_t *row = image.pixels + static_cast<size_t>(y) * image.bytes_per_row;
            for (int32_t x = 0; x < image.width; ++x) {
                rgb[y][x] = dlib::rgb_pixel(row[4 * x], row[4 * x + 1], row[4 * x + 2]);
            }
        }
        body(static_cast<const dlib::array2d<dlib::rgb_pixel> &>(rgb));
    }
}

int32_t clamp_to_int32(long value) {
    if (value > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
    if (value < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(value);
}

/// Runs `task(index)` for every index below `count` on `threads` threads (the
/// calling one among them), handing out indices in order; rethrows the first
/// exception a task threw once every thread has stopped.
template <typename Task>
void run_on_threads(size_t count, int32_t threads, Task task) {
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    // An index taken is always run (a task may wait for an earlier one, which must
    // therefore run); after a failure no further index is taken.
    auto work = [&] {
        while (!failed) {
            const size_t index = next++;
            if (index >= count) break;
            try {
                task(index);
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    const size_t extra = std::min<size_t>(count > 0 ? count - 1 : 0, static_cast<size_t>(std::max(threads, 1) - 1));
    try {
        helpers.reserve(extra);
        for (size_t index = 0; index < extra; ++index) helpers.emplace_back(work);
    } catch (...) {
        // No more threads (or no memory for them): the ones started and this one do the work.
    }
    work();
    for (auto &helper : helpers) helper.join();
    if (failure) std::rethrow_exception(failure);
}

/// What `detector.detector(image, detections, adjust_threshold)` finds, box for box
/// and score for score, with the work on `threads` threads. dlib's object detector
/// computes the HOG features of every level of an image pyramid (about 60% of its
/// time), then scans every level with each sub-detector's filters, keeps the scores
/// above its threshold, and suppresses overlapping boxes. Here the levels' features
/// are computed in parallel, then each (sub-detector, level) scan; the results are
/// put together in dlib's order before its sorts and its suppression, so the outcome
/// does not depend on the number of threads.
template <typename image_type>
std::vector<dlib::rect_detection> detect_on_threads(const cdlib_detector &detector, const image_type &image,
                                                    double adjust_threshold, int32_t threads) {
    using pixel_type = typename dlib::image_traits<image_type>::pixel_type;
    using pyramid_type = cdlib_detector::scanner_type::pyramid_type;
    const auto &scanner = detector.scanner;
    const long window_width = static_cast<long>(scanner.get_fhog_window_width());
    const long window_height = static_cast<long>(scanner.get_fhog_window_height());
    const long box_width = window_width - 2 * static_cast<long>(scanner.get_padding());
    const long box_height = window_height - 2 * static_cast<long>(scanner.get_padding());
    const int cell_size = static_cast<int>(scanner.get_cell_size());
    const auto extractor = scanner.get_feature_extractor();
    pyramid_type pyramid;

    // The levels, counted as dlib's scanner counts them, and their images.
    unsigned long levels = 0;
    dlib::rectangle rect = dlib::get_rect(image);
    do {
        rect = pyramid.rect_down(rect);
        ++levels;
    } while (rect.width() >= scanner.get_min_pyramid_layer_width() && rect.height() >= scanner.get_min_pyramid_layer_height() &&
             levels < scanner.get_max_pyramid_levels());

    // Each level's features. Each level's image is made from the one above it (a
    // chain as long as the largest level's features take): the first task makes them
    // one after the other while the others compute the features of those made.
    std::vector<dlib::array2d<pixel_type>> smaller(levels - 1);
    dlib::array<dlib::array<dlib::array2d<float>>> features;
    features.set_max_size(levels);
    features.set_size(levels);
    std::mutex made_lock;
    std::condition_variable made_signal;
    unsigned long made = 1;  // levels whose image exists (level 0 is `image`)
    bool chain_failed = false;
    run_on_threads(levels + 1, threads, [&](size_t task) {
        if (task == 0) {
            try {
                for (unsigned long level = 1; level < levels; ++level) {
                    if (level == 1) pyramid(image, smaller[0]);
                    else pyramid(smaller[level - 2], smaller[level - 1]);
                    std::lock_guard<std::mutex> guard(made_lock);
                    made = level + 1;
                    made_signal.notify_all();
                }
            } catch (...) {
                std::lock_guard<std::mutex> guard(made_lock);
                chain_failed = true;
                made = levels;
                made_signal.notify_all();
                throw;
            }
            return;
        }
        const unsigned long level = task - 1;
        if (level == 0) return extractor(image, features[0], cell_size, window_height, window_width);
        {
            std::unique_lock<std::mutex> guard(made_lock);
            made_signal.wait(guard, [&] { return made > level; });
            if (chain_failed) return;
        }
        extractor(smaller[level - 1], features[level], cell_size, window_height, window_width);
    });

    // Each (sub-detector, level) scan: the largest levels first.
    const size_t detectors = detector.filters.size();
    std::vector<std::vector<std::pair<double, dlib::rectangle>>> found(detectors * levels);
    run_on_threads(detectors * levels, threads, [&](size_t task) {
        const size_t level = task / detectors, index = task % detectors;
        const double threshold = detector.thresholds[index] + adjust_threshold;
        dlib::array2d<float> saliency;
        const dlib::rectangle area = dlib::impl::apply_filters_to_fhog(detector.filters[index], features[level], saliency);
        auto &hits = found[index * levels + level];
        for (long row = area.top(); row <= area.bottom(); ++row) {
            for (long column = area.left(); column <= area.right(); ++column) {
                if (!(saliency[row][column] >= threshold)) continue;  // as dlib keeps a hit: >= the threshold
                dlib::rectangle box = extractor.feats_to_image(dlib::centered_rect(dlib::point(column, row), box_width, box_height),
                                                               cell_size, window_height, window_width);
                hits.emplace_back(saliency[row][column], pyramid.rect_up(box, static_cast<unsigned long>(level)));
            }
        }
    });

    // dlib's object detector from here on: each sub-detector's hits (its levels in
    // order) sorted best first, scores made relative to its threshold, all of them
    // sorted best first, and a box kept unless it overlaps one kept already.
    std::vector<dlib::rect_detection> all;
    for (size_t index = 0; index < detectors; ++index) {
        std::vector<std::pair<double, dlib::rectangle>> hits;
        for (unsigned long level = 0; level < levels; ++level) {
            const auto &part = found[index * levels + level];
            hits.insert(hits.end(), part.begin(), part.end());
        }
        std::sort(hits.rbegin(), hits.rend(), dlib::impl::compare_pair_rect);
        for (const auto &hit : hits) {
            dlib::rect_detection detection;
            detection.detection_confidence = hit.first - detector.thresholds[index];
            detection.weight_index = index;
            detection.rect = hit.second;
            all.push_back(detection);
        }
    }
    if (detectors > 1) std::sort(all.rbegin(), all.rend());
    const auto overlaps = detector.detector.get_overlap_tester();
    std::vector<dlib::rect_detection> kept;
    for (const auto &candidate : all) {
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const dlib::rect_detection &other) {
            return overlaps(other.rect, candidate.rect);
        });
        if (!suppressed) kept.push_back(candidate);
    }
    return kept;
}

/// The detector on `image` as it is: dlib's own call on one thread, else `detect_on_threads`.
template <typename image_type>
std::vector<dlib::rect_detection> detect_at_size(cdlib_detector &detector, const image_type &image, double adjust_threshold,
                                                 int32_t threads) {
    if (threads > 1) return detect_on_threads(detector, image, adjust_threshold, threads);
    std::vector<dlib::rect_detection> detections;
    detector.detector(image, detections, adjust_threshold);
    return detections;
}

/// Runs the detector on `image`, upsampled `upsample_count` times, and maps the
/// boxes back to `image`'s pixels (as dlib's Python binding does).
template <typename image_type>
std::vector<dlib::rect_detection> detect_in(cdlib_detector &detector, const image_type &image, int32_t upsample_count,
                                            double adjust_threshold, int32_t threads) {
    if (upsample_count == 0) return detect_at_size(detector, image, adjust_threshold, threads);
    dlib::pyramid_down<2> pyramid;
    dlib::array2d<typename dlib::image_traits<image_type>::pixel_type> larger;
    dlib::pyramid_up(image, larger, pyramid);
    for (int32_t step = 1; step < upsample_count; ++step) dlib::pyramid_up(larger, pyramid);
    auto detections = detect_at_size(detector, larger, adjust_threshold, threads);
    for (auto &detection : detections) {
        detection.rect = dlib::rectangle(pyramid.rect_down(dlib::drectangle(detection.rect), upsample_count));
    }
    return detections;
}

/// The five landmarks as dlib's detection object (its box is unused by the alignment).
dlib::full_object_detection landmarks_shape(const int32_t *points) {
    constexpr int32_t limit = 1 << 20;
    std::vector<dlib::point> parts;
    long left = points[0], right = points[0], top = points[1], bottom = points[1];
    for (int index = 0; index < CDLIB_LANDMARK_COUNT; ++index) {
        const int32_t x = points[2 * index], y = points[2 * index + 1];
        require(x > -limit && x < limit && y > -limit && y < limit, "a landmark is out of range");
        parts.emplace_back(x, y);
        left = std::min<long>(left, x);
        right = std::max<long>(right, x);
        top = std::min<long>(top, y);
        bottom = std::max<long>(bottom, y);
    }
    // The alignment is a similarity transform fitted to the points: the points must
    // span a plane (the two eyes and the nose are never on one line in a face).
    const dlib::dpoint a = parts[0], b = parts[2], c = parts[4];
    const double twice_area = std::abs((b.x() - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (b.y() - a.y()));
    require(twice_area >= 1, "the landmarks are degenerate (the eyes and the nose are on one line)");
    return dlib::full_object_detection(dlib::rectangle(left, top, right, bottom), parts);
}

/// The 150x150 aligned chips of `count` faces of `image`.
std::vector<dlib::matrix<dlib::rgb_pixel>> face_chips(const cdlib_image &image, const int32_t *landmarks, size_t count) {
    std::vector<dlib::full_object_detection> shapes;
    shapes.reserve(count);
    for (size_t face = 0; face < count; ++face) shapes.push_back(landmarks_shape(landmarks + 2 * CDLIB_LANDMARK_COUNT * face));
    std::vector<dlib::matrix<dlib::rgb_pixel>> chips(count);
    with_dlib_image(image, [&](const auto &pixels) {
        using pixel = typename dlib::image_traits<std::decay_t<decltype(pixels)>>::pixel_type;
        for (size_t face = 0; face < count; ++face) {
            const auto details = dlib::get_face_chip_details(shapes[face], facenet::chip_size, facenet::chip_padding);
            if constexpr (std::is_same_v<pixel, unsigned char>) {
                // Interpolated in gray, then taken as gray RGB.
                dlib::matrix<unsigned char> gray_chip;
                dlib::extract_image_chip(pixels, details, gray_chip);
                dlib::assign_image(chips[face], gray_chip);
            } else {
                dlib::extract_image_chip(pixels, details, chips[face]);
            }
        }
    });
    return chips;
}

/// The embeddings of `chips` (jittered copies averaged when `jitter` > 0) into `out`.
void run_network(facenet::network &network, const std::vector<dlib::matrix<dlib::rgb_pixel>> &chips, int32_t jitter,
                 float *out) {
    if (chips.empty()) return;
    auto store = [out](size_t face, const dlib::matrix<float, 0, 1> &embedding) {
        if (embedding.size() != CDLIB_EMBEDDING_SIZE) fail(CDLIB_ERROR_MODEL, "the network did not give 128 numbers");
        for (long index = 0; index < CDLIB_EMBEDDING_SIZE; ++index) {
            out[face * CDLIB_EMBEDDING_SIZE + static_cast<size_t>(index)] = embedding(index);
        }
    };
    if (jitter == 0) {
        const std::vector<dlib::matrix<float, 0, 1>> embeddings = network(chips, facenet::batch_size);
        for (size_t face = 0; face < chips.size(); ++face) store(face, embeddings[face]);
        return;
    }
    dlib::rand random;  // restarts on every call: reproducible results
    for (size_t face = 0; face < chips.size(); ++face) {
        std::vector<dlib::matrix<dlib::rgb_pixel>> copies;
        copies.reserve(static_cast<size_t>(jitter));
        for (int32_t copy = 0; copy < jitter; ++copy) copies.push_back(dlib::jitter_image(chips[face], random));
        const std::vector<dlib::matrix<float, 0, 1>> embeddings = network(copies, facenet::batch_size);
        dlib::matrix<float, 0, 1> sum = dlib::zeros_matrix<float>(CDLIB_EMBEDDING_SIZE, 1);
        for (const auto &embedding : embeddings) {
            if (embedding.size() != CDLIB_EMBEDDING_SIZE) fail(CDLIB_ERROR_MODEL, "the network did not give 128 numbers");
            sum += embedding;
        }
        store(face, sum / static_cast<float>(embeddings.size()));
    }
}

/// Reads a dlib model file into `object`, with a message naming the file when it
/// cannot be read.
template <typename object_type>
void load_model(const char *path, object_type &object, const char *kind) {
    require(path != nullptr && path[0] != '\0', "the model path is NULL or empty");
    std::ifstream file(path, std::ios::binary);
    if (!file) fail(CDLIB_ERROR_MODEL, std::string("cannot open the ") + kind + " file " + path + ": " + std::strerror(errno));
    try {
        dlib::deserialize(object, file);
    } catch (const dlib::serialization_error &e) {
        fail(CDLIB_ERROR_MODEL, std::string("the file ") + path + " is not a usable " + kind + " (truncated, corrupt or another model): " +
                          e.what());
    } catch (const std::bad_alloc &) {
        // A corrupt size field can ask for an absurd allocation.
        fail(CDLIB_ERROR_MODEL, std::string("the file ") + path + " is not a usable " + kind + " (corrupt: an impossible size)");
    } catch (const std::exception &e) {
        // A read error (a directory, an I/O error) or a corrupt size (std::length_error).
        fail(CDLIB_ERROR_MODEL, std::string("cannot read the ") + kind + " file " + path + ": " + e.what());
    }
}

using openblas_set_num_threads_function = void (*)(int);

/// dlib builds its face detector by decoding and decompressing a serialised copy
/// compiled into the library, about 0.2 s: that is done once, and each detector is
/// a copy of this one (0.1 ms). Copying only reads the prototype.
const dlib::frontal_face_detector &frontal_face_prototype() {
    static const dlib::frontal_face_detector prototype = dlib::get_frontal_face_detector();
    return prototype;
}

}  // namespace

extern "C" {

const char *cdlib_version(void) {
#define CDLIB_STRINGIFY_(value) #value
#define CDLIB_STRINGIFY(value) CDLIB_STRINGIFY_(value)
    return CDLIB_STRINGIFY(DLIB_MAJOR_VERSION) "." CDLIB_STRINGIFY(DLIB_MINOR_VERSION) "." CDLIB_STRINGIFY(DLIB_PATCH_VERSION);
#undef CDLIB_STRINGIFY
#undef CDLIB_STRINGIFY_
}

// MARK: Detection

cdlib_status cdlib_detector_create(cdlib_detector **out, cdlib_error *error) {
    return guarded(error, [&] {
        require(out != nullptr, "the output pointer is NULL");
        *out = nullptr;
        *out = new cdlib_detector(frontal_face_prototype());
    });
}

void cdlib_detector_destroy(cdlib_detector *detector) { delete detector; }

cdlib_status cdlib_detect_faces(cdlib_detector *detector, const cdlib_image *image, int32_t upsample_count,
                                double adjust_threshold, int32_t threads, cdlib_face *out_faces, size_t max_faces,
                                size_t *out_count, cdlib_error *error) {
    return guarded(error, [&] {
        require(out_count != nullptr, "out_count is NULL");
        *out_count = 0;
        require(detector != nullptr, "the detector is NULL");
        check_image(image);
        require(upsample_count >= 0 && upsample_count <= CDLIB_MAX_UPSAMPLE, "upsample_count is not in 0...CDLIB_MAX_UPSAMPLE");
        require(!std::isnan(adjust_threshold) && adjust_threshold != INFINITY, "adjust_threshold is NaN or +infinity");
        require(out_faces != nullptr || max_faces == 0, "out_faces is NULL but max_faces is not 0");
        require(threads >= 1 && threads <= CDLIB_MAX_THREADS, "threads is not in 1...CDLIB_MAX_THREADS");
        const double scale = std::ldexp(1.0, 2 * upsample_count);
        require(static_cast<double>(image->width) * static_cast<double>(image->height) * scale <= static_cast<double>(CDLIB_MAX_SCAN_PIXELS),
                "the image is too large to scan (width x height x 4^upsample_count above CDLIB_MAX_SCAN_PIXELS)");

        std::vector<dlib::rect_detection> detections;
        with_dlib_image(*image, [&](const auto &pixels) {
            detections = detect_in(*detector, pixels, upsample_count, adjust_threshold, threads);
        });
        const size_t written = std::min(detections.size(), max_faces);
        for (size_t index = 0; index < written; ++index) {
            const auto &detection = detections[index];
            out_faces[index].box = cdlib_box{clamp_to_int32(detection.rect.left()), clamp_to_int32(detection.rect.top()),
                                             clamp_to_int32(detection.rect.right()), clamp_to_int32(detection.rect.bottom())};
            out_faces[index].confidence = detection.detection_confidence;
            out_faces[index].detector_index = static_cast<int32_t>(detection.weight_index);
        }
        *out_count = detections.size();
    });
}

// MARK: CNN detection

cdlib_status cdlib_cnn_detector_load(const char *path, cdlib_cnn_detector **out, cdlib_error *error) {
    return guarded(error, [&] {
        require(out != nullptr, "the output pointer is NULL");
        *out = nullptr;
        auto detector = std::make_unique<cdlib_cnn_detector>();
        load_model(path, detector->network, "CNN face detector");
        *out = detector.release();
    });
}

void cdlib_cnn_detector_destroy(cdlib_cnn_detector *detector) { delete detector; }

cdlib_status cdlib_cnn_detect_faces(cdlib_cnn_detector *detector, const cdlib_image *image, int32_t upsample_count,
                                    cdlib_face *out_faces, size_t max_faces, size_t *out_count, cdlib_error *error) {
    return guarded(error, [&] {
        require(out_count != nullptr, "out_count is NULL");
        *out_count = 0;
        require(detector != nullptr, "the detector is NULL");
        check_image(image);
        require(upsample_count >= 0 && upsample_count <= CDLIB_MAX_UPSAMPLE, "upsample_count is not in 0...CDLIB_MAX_UPSAMPLE");
        require(out_faces != nullptr || max_faces == 0, "out_faces is NULL but max_faces is not 0");
        const double scale = std::ldexp(1.0, 2 * upsample_count);
        require(static_cast<double>(image->width) * static_cast<double>(image->height) * scale <= static_cast<double>(CDLIB_MAX_SCAN_PIXELS),
                "the image is too large to scan (width x height x 4^upsample_count above CDLIB_MAX_SCAN_PIXELS)");
        // The network takes RGB: a gray image is taken as gray RGB.
        dlib::matrix<dlib::rgb_pixel> pixels;
        with_dlib_image(*image, [&](const auto &view) { dlib::assign_image(pixels, view); });
        dlib::pyramid_down<2> pyramid;
        for (int32_t step = 0; step < upsample_count; ++step) dlib::pyramid_up(pixels, pyramid);
        const std::vector<dlib::mmod_rect> detections = detector->network(pixels);
        const size_t written = std::min(detections.size(), max_faces);
        for (size_t index = 0; index < written; ++index) {
            const dlib::rectangle rect(pyramid.rect_down(dlib::drectangle(detections[index].rect), upsample_count));
            out_faces[index].box = cdlib_box{clamp_to_int32(rect.left()), clamp_to_int32(rect.top()),
                                             clamp_to_int32(rect.right()), clamp_to_int32(rect.bottom())};
            out_faces[index].confidence = detections[index].detection_confidence;
            out_faces[index].detector_index = -1;
        }
        *out_count = detections.size();
    });
}

// MARK: Landmarks

cdlib_status cdlib_shape_predictor_load(const char *path, cdlib_shape_predictor **out, cdlib_error *error) {
    return guarded(error, [&] {
        require(out != nullptr, "the output pointer is NULL");
        *out = nullptr;
        auto predictor = std::make_unique<cdlib_shape_predictor>();
        load_model(path, predictor->predictor, "shape predictor");
        if (predictor->predictor.num_parts() != CDLIB_LANDMARK_COUNT) {
            fail(CDLIB_ERROR_MODEL, std::string("the shape predictor ") + path + " gives " +
                              std::to_string(predictor->predictor.num_parts()) +
                              " landmarks, not 5 (use shape_predictor_5_face_landmarks.dat)");
        }
        *out = predictor.release();
    });
}

void cdlib_shape_predictor_destroy(cdlib_shape_predictor *predictor) { delete predictor; }

cdlib_status cdlib_landmarks(const cdlib_shape_predictor *predictor, const cdlib_image *image, cdlib_box box,
                             int32_t out_points[2 * CDLIB_LANDMARK_COUNT], cdlib_error *error) {
    return guarded(error, [&] {
        require(predictor != nullptr, "the shape predictor is NULL");
        require(out_points != nullptr, "out_points is NULL");
        check_image(image);
        const dlib::rectangle rect = checked_box(box);
        dlib::full_object_detection shape;
        with_dlib_image(*image, [&](const auto &pixels) { shape = predictor->predictor(pixels, rect); });
        if (shape.num_parts() != CDLIB_LANDMARK_COUNT) fail(CDLIB_ERROR_MODEL, "the shape predictor did not give 5 landmarks");
        for (unsigned long index = 0; index < CDLIB_LANDMARK_COUNT; ++index) {
            out_points[2 * index] = clamp_to_int32(shape.part(index).x());
            out_points[2 * index + 1] = clamp_to_int32(shape.part(index).y());
        }
    });
}

// MARK: Embeddings

cdlib_status cdlib_face_encoder_load(const char *path, cdlib_face_encoder **out, cdlib_error *error) {
    return guarded(error, [&] {
        require(out != nullptr, "the output pointer is NULL");
        *out = nullptr;
        auto encoder = std::make_unique<cdlib_face_encoder>();
        load_model(path, encoder->network, "face recognition network");
        *out = encoder.release();
    });
}

void cdlib_face_encoder_destroy(cdlib_face_encoder *encoder) { delete encoder; }

cdlib_status cdlib_face_embeddings(cdlib_face_encoder *encoder, const cdlib_image *image, const int32_t *landmarks,
                                   size_t count, int32_t jitter, float *out_embeddings, cdlib_error *error) {
    return guarded(error, [&] {
        require(encoder != nullptr, "the encoder is NULL");
        check_image(image);
        require(jitter >= 0 && jitter <= CDLIB_MAX_JITTER, "jitter is not in 0...CDLIB_MAX_JITTER");
        if (count == 0) return;
        require(landmarks != nullptr, "landmarks is NULL");
        require(out_embeddings != nullptr, "out_embeddings is NULL");
        require(count <= (std::numeric_limits<size_t>::max() / sizeof(float)) / CDLIB_EMBEDDING_SIZE, "count is too large");
        run_network(encoder->network, face_chips(*image, landmarks, count), jitter, out_embeddings);
    });
}

cdlib_status cdlib_face_embedding(cdlib_face_encoder *encoder, const cdlib_image *image,
                                  const int32_t landmarks[2 * CDLIB_LANDMARK_COUNT], int32_t jitter,
                                  float out_embedding[CDLIB_EMBEDDING_SIZE], cdlib_error *error) {
    if (landmarks == nullptr) return set_error(error, CDLIB_ERROR_ARGUMENT, "landmarks is NULL");
    if (out_embedding == nullptr) return set_error(error, CDLIB_ERROR_ARGUMENT, "out_embedding is NULL");
    return cdlib_face_embeddings(encoder, image, landmarks, 1, jitter, out_embedding, error);
}

// MARK: BLAS

cdlib_status cdlib_blas_library(char *path, size_t size, cdlib_error *error) {
    return guarded(error, [&] {
        require(path != nullptr && size > 0, "path is NULL or size is 0");
        path[0] = '\0';
        // dlib's network multiplies its matrices with cblas_sgemm.
        void *symbol = dlsym(RTLD_DEFAULT, "cblas_sgemm");
        Dl_info info{};
        if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) {
            fail(CDLIB_ERROR_UNSUPPORTED, "cblas_sgemm is not loaded in this process");
        }
        // The file as loaded is usually Debian's alternatives link (libblas.so.3): name its target.
        char *resolved = realpath(info.dli_fname, nullptr);
        std::snprintf(path, size, "%s", resolved != nullptr ? resolved : info.dli_fname);
        std::free(resolved);
    });
}

cdlib_status cdlib_set_blas_threads(int32_t count, cdlib_error *error) {
    return guarded(error, [&] {
        require(count >= 1, "the thread count is not positive");
        auto set_threads = reinterpret_cast<openblas_set_num_threads_function>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
        if (set_threads == nullptr) fail(CDLIB_ERROR_UNSUPPORTED, "the BLAS library in use is not OpenBLAS");
        set_threads(count);
    });
}

}  // extern "C"
