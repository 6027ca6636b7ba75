// The few things Memora's system layer (MemoraSystem) needs from C that Swift's
// Glibc and Darwin modules do not export: flags glibc declares only under
// _GNU_SOURCE, a wipe the optimiser cannot remove, and SHA-256 from the
// platform's crypto library (OpenSSL's libcrypto on Linux, CommonCrypto on Apple platforms).
#ifndef CMEMORA_SYSTEM_H
#define CMEMORA_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `O_DIRECT` (write past the page cache), or 0 where the platform has none.
int memora_o_direct(void);

/// Sets (enable != 0) or clears `O_DIRECT` on an open descriptor. Returns 0 on success,
/// -1 with errno set (tmpfs and some file systems refuse it with EINVAL), and -1 with
/// errno = ENOTSUP where the platform has no such flag. On Apple platforms it sets
/// `F_NOCACHE`, their equivalent.
int memora_set_direct_io(int descriptor, int enable);

/// Overwrites `length` bytes at `pointer` with zeros in a way the compiler keeps.
void memora_secure_zero(void *pointer, size_t length);

/// An incremental SHA-256; the state is opaque to Swift.
typedef struct { _Alignas(16) unsigned char opaque[256]; } memora_sha256_state;  // zero-initialised by the caller

/// Starts a digest. Returns 0 on success.
int memora_sha256_init(memora_sha256_state *state);
/// Adds `length` bytes.
int memora_sha256_update(memora_sha256_state *state, const void *bytes, size_t length);
/// Writes the 32-byte digest to `digest` and releases the state.
int memora_sha256_final(memora_sha256_state *state, unsigned char digest[32]);
/// Releases a state that was never finalised (a no-op after final).
void memora_sha256_free(memora_sha256_state *state);

/// Writes the IPv4 and IPv6 addresses of the interfaces that are up (the loopback too) into `out`,
/// one per line, NUL-terminated; stops early when `out` is full. Returns 0, or -1 when they cannot be listed.
int memora_local_addresses(char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
