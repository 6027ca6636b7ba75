// See include/CMemoraSystem.h.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "CMemoraSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#if defined(__APPLE__)
#include <CommonCrypto/CommonDigest.h>
_Static_assert(sizeof(CC_SHA256_CTX) <= sizeof(memora_sha256_state), "memora_sha256_state is too small");
#else
#include <openssl/crypto.h>
#include <openssl/evp.h>
/// On Linux the state holds a pointer to OpenSSL's digest context (freed by final or free).
typedef struct { EVP_MD_CTX *context; } openssl_state;
_Static_assert(sizeof(openssl_state) <= sizeof(memora_sha256_state), "memora_sha256_state is too small");
#endif

int memora_o_direct(void) {
#ifdef O_DIRECT
    return O_DIRECT;
#else
    return 0;
#endif
}

int memora_set_direct_io(int descriptor, int enable) {
#if defined(O_DIRECT)
    int flags = fcntl(descriptor, F_GETFL);
    if (flags < 0) return -1;
    flags = enable ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
    return fcntl(descriptor, F_SETFL, flags) == 0 ? 0 : -1;
#elif defined(__APPLE__)
    // Apple platforms have no O_DIRECT; F_NOCACHE asks for the same (no caching of the data).
    return fcntl(descriptor, F_NOCACHE, enable ? 1 : 0) == -1 ? -1 : 0;
#else
    (void)descriptor; (void)enable;
    errno = ENOTSUP;
    return -1;
#endif
}

void memora_secure_zero(void *pointer, size_t length) {
    if (pointer == NULL || length == 0) return;
#if defined(__APPLE__)
    memset_s(pointer, length, 0, length);
#else
    OPENSSL_cleanse(pointer, length);
#endif
}

int memora_sha256_init(memora_sha256_state *state) {
#if defined(__APPLE__)
    return CC_SHA256_Init((CC_SHA256_CTX *)state) == 1 ? 0 : -1;
#else
    openssl_state *own = (openssl_state *)state;
    own->context = EVP_MD_CTX_new();
    if (own->context == NULL) return -1;
    if (EVP_DigestInit_ex(own->context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(own->context);
        own->context = NULL;
        return -1;
    }
    return 0;
#endif
}

int memora_sha256_update(memora_sha256_state *state, const void *bytes, size_t length) {
#if defined(__APPLE__)
    return CC_SHA256_Update((CC_SHA256_CTX *)state, bytes, (CC_LONG)length) == 1 ? 0 : -1;
#else
    openssl_state *own = (openssl_state *)state;
    if (own->context == NULL) return -1;
    return EVP_DigestUpdate(own->context, bytes, length) == 1 ? 0 : -1;
#endif
}

int memora_sha256_final(memora_sha256_state *state, unsigned char digest[32]) {
#if defined(__APPLE__)
    return CC_SHA256_Final(digest, (CC_SHA256_CTX *)state) == 1 ? 0 : -1;
#else
    openssl_state *own = (openssl_state *)state;
    if (own->context == NULL) return -1;
    unsigned int length = 0;
    int status = EVP_DigestFinal_ex(own->context, digest, &length) == 1 && length == 32 ? 0 : -1;
    EVP_MD_CTX_free(own->context);
    own->context = NULL;
    return status;
#endif
}

void memora_sha256_free(memora_sha256_state *state) {
#if !defined(__APPLE__)
    openssl_state *own = (openssl_state *)state;
    if (own->context != NULL) {
        EVP_MD_CTX_free(own->context);
        own->context = NULL;
    }
#else
    (void)state;
#endif
}

int memora_local_addresses(char *out, size_t size) {
    struct ifaddrs *list = NULL;
    if (size == 0 || getifaddrs(&list) != 0) return -1;
    size_t used = 0;
    out[0] = 0;
    for (struct ifaddrs *entry = list; entry != NULL; entry = entry->ifa_next) {
        if (entry->ifa_addr == NULL || !(entry->ifa_flags & IFF_UP)) continue;
        char text[INET6_ADDRSTRLEN + 1];
        const char *written = NULL;
        if (entry->ifa_addr->sa_family == AF_INET) {
            written = inet_ntop(AF_INET, &((const struct sockaddr_in *)entry->ifa_addr)->sin_addr, text, sizeof text);
        } else if (entry->ifa_addr->sa_family == AF_INET6) {
            written = inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)entry->ifa_addr)->sin6_addr, text, sizeof text);
        }
        if (written == NULL) continue;
        size_t length = strlen(text);
        if (used + length + 2 > size) break;
        memcpy(out + used, text, length);
        used += length;
        out[used++] = '\n';
        out[used] = 0;
    }
    freeifaddrs(list);
    return 0;
}
