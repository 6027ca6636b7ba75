#define _GNU_SOURCE
#include "CBenchPeers.h"

#include <sched.h>

#include <stdlib.h>
#include <sodium.h>
#include <turbojpeg.h>

#include "CExiv2.h"

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

static const unsigned char bench_key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const unsigned char bench_nonce[12] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2};

int bench_sodium_seal(int algorithm, const uint8_t *plaintext, size_t length, uint8_t *ciphertext, uint8_t *tag) {
    if (sodium_init() < 0) return -1;
    if (algorithm == 1) {
        return crypto_aead_aes256gcm_encrypt_detached(ciphertext, tag, NULL, plaintext, length, NULL, 0, NULL, bench_nonce, bench_key);
    }
    return crypto_aead_chacha20poly1305_ietf_encrypt_detached(ciphertext, tag, NULL, plaintext, length, NULL, 0, NULL, bench_nonce, bench_key);
}

int bench_sodium_open(int algorithm, const uint8_t *ciphertext, size_t length, const uint8_t *tag, uint8_t *plaintext) {
    if (sodium_init() < 0) return -1;
    if (algorithm == 1) {
        return crypto_aead_aes256gcm_decrypt_detached(plaintext, NULL, ciphertext, length, tag, NULL, 0, bench_nonce, bench_key);
    }
    return crypto_aead_chacha20poly1305_ietf_decrypt_detached(plaintext, NULL, ciphertext, length, tag, NULL, 0, bench_nonce, bench_key);
}

int bench_sodium_seal_new_buffer(int algorithm, const uint8_t *plaintext, size_t length) {
    unsigned char *output = malloc(length + 16);
    if (output == NULL) return -1;
    int status = bench_sodium_seal(algorithm, plaintext, length, output, output + length);
    free(output);
    return status;
}

int bench_sodium_open_new_buffer(int algorithm, const uint8_t *ciphertext, size_t length, const uint8_t *tag) {
    unsigned char *output = malloc(length > 0 ? length : 1);
    if (output == NULL) return -1;
    int status = bench_sodium_open(algorithm, ciphertext, length, tag, output);
    free(output);
    return status;
}

int bench_set_single_cpu(int single) {
    static cpu_set_t original;
    static int saved = 0;
    if (!saved) {
        if (sched_getaffinity(0, sizeof(original), &original) != 0) return -1;
        saved = 1;
    }
    if (!single) return sched_setaffinity(0, sizeof(original), &original);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &original)) {
            CPU_SET(cpu, &one);
            break;
        }
    }
    return sched_setaffinity(0, sizeof(one), &one);
}

long bench_libexiv2_tag_count(const uint8_t *bytes, size_t length) {
    cexiv2_error error;
    cexiv2_tag_list *list = cexiv2_read_memory(bytes, length, &error);
    if (list == NULL) return -1;
    long count = (long)cexiv2_tag_count(list);
    cexiv2_tag_list_free(list);
    return count;
}
