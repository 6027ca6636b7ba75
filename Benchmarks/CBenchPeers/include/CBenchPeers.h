/// Peers for memora-bench: the same work done straight in C, so the Swift
/// figures can be given as a ratio against a limit measured in the same run.
#ifndef CBENCHPEERS_H
#define CBENCHPEERS_H

#include <stddef.h>
#include <stdint.h>

/// Decodes a JPEG to packed RGB with raw libturbojpeg (one handle, one
/// buffer, reused across calls by the caller). Returns 0 on success.
/// `output` must hold width * height * 3 bytes.
int bench_turbojpeg_decode_rgb(void *handle, const uint8_t *jpeg, size_t length,
                               uint8_t *output, int width, int height);

/// A libturbojpeg decompressor handle for `bench_turbojpeg_decode_rgb`.
void *bench_turbojpeg_create(void);
/// Releases a handle from `bench_turbojpeg_create`.
void bench_turbojpeg_destroy(void *handle);



/// Decodes a JPEG to packed RGB with raw libturbojpeg into a freshly
/// allocated buffer, reading the header first, as any decoder that returns a
/// new image must; the buffer is freed before returning. Returns 0 on success.
int bench_turbojpeg_decode_rgb_new_buffer(void *handle, const uint8_t *jpeg, size_t length);

/// Decodes a JPEG at 1/`denominator` scale (DCT scaling, fast DCT and fast
/// upsampling, as a thumbnailer does) into a freshly allocated buffer with raw
/// libturbojpeg: the floor for any JPEG thumbnailer built on it. Returns 0 on success.
int bench_turbojpeg_decode_scaled(void *handle, const uint8_t *jpeg, size_t length, int denominator);

/// Encrypts `length` bytes in one raw libsodium AEAD call (algorithm 1 =
/// AES-256-GCM, 2 = ChaCha20-Poly1305-IETF), a fixed key and nonce, detached
/// 16-byte tag: the throughput limit for LOCA encryption. Returns 0 on success.
int bench_sodium_seal(int algorithm, const uint8_t *plaintext, size_t length, uint8_t *ciphertext, uint8_t *tag);
/// Verifies and decrypts what `bench_sodium_seal` produced. Returns 0 on success.
int bench_sodium_open(int algorithm, const uint8_t *ciphertext, size_t length, const uint8_t *tag, uint8_t *plaintext);

/// Like `bench_sodium_seal`/`bench_sodium_open`, but into an output buffer
/// allocated (and freed) by the call, as an API returning new data must.
int bench_sodium_seal_new_buffer(int algorithm, const uint8_t *plaintext, size_t length);
int bench_sodium_open_new_buffer(int algorithm, const uint8_t *ciphertext, size_t length, const uint8_t *tag);

/// libexiv2 reading every tag of an image in memory, container and all (through CExiv2's
/// plain libexiv2 path); the number of tags found, or -1 when it fails.
long bench_libexiv2_tag_count(const uint8_t *bytes, size_t length);

/// Pins this process to its first allowed CPU (`single` != 0) or restores the
/// original affinity (`single` == 0). Returns 0 on success.
int bench_set_single_cpu(int single);
#endif
