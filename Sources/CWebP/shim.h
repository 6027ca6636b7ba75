#ifndef CWebP_SHIM_H
#define CWebP_SHIM_H
#include <webp/decode.h>
#include <webp/encode.h>

// WebPGetFeatures and WebPInitDecoderConfig are macros over versioned functions in the
// headers; these inline forms give Swift something it can call.
static inline VP8StatusCode memora_webp_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features) {
    return WebPGetFeatures(data, size, features);
}
#endif
