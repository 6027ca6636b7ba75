#!/usr/bin/env python3
"""Independent reference implementation of the LOCA version 1 file format.

Written from Docs/LOCA-format.md, not from the Swift sources, with the Python
`cryptography` package (OpenSSL) instead of libsodium, so that the known-answer
vectors it prints check the Swift implementation against a second one.

    python3 scripts/loca_reference.py --self-test
        round trips, every rejection, tamper detection on every vector byte
    python3 scripts/loca_reference.py --swift-vectors > Tests/VaultCryptoTests/LOCAVectors.swift
        the known-answer vectors as Swift constants

Public functions: encrypt, decrypt, parse_header, file_keys, chunk_nonce,
wrap_photo_key, unwrap_photo_key.
"""

import argparse
import hashlib
import hmac
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.hmac import HMAC
from cryptography.hazmat.primitives.kdf.hkdf import HKDF, HKDFExpand

# ---------------------------------------------------------------------------
# Constants of the format (Docs/LOCA-format.md, "Header")

MAGIC = b"LOCA"
VERSION = 0x0001
AES_256_GCM = 0x01
CHACHA20_POLY1305 = 0x02
ALGORITHMS = {AES_256_GCM: AESGCM, CHACHA20_POLY1305: ChaCha20Poly1305}
HEADER_LENGTH = 64
TAG_LENGTH = 16
KEY_LENGTH = 32
NONCE_LENGTH = 12
COMMITMENT_LENGTH = 28
MIN_EXPONENT, MAX_EXPONENT, DEFAULT_EXPONENT = 12, 24, 16
MAX_CHUNKS = 2**32 - 1  # original size <= (2^32 - 1) * 2^e

# struct layout of the header: big-endian, no padding.
# magic 4s | version H | algorithm B | exponent B | nonce 12s | size Q | timestamp Q | commitment 28s
HEADER_STRUCT = struct.Struct(">4sHBB12sQQ28s")
assert HEADER_STRUCT.size == HEADER_LENGTH

PAYLOAD_INFO = b"LOCA v1 payload key"
COMMITMENT_INFO = b"LOCA v1 key commitment"

WRAP_VERSION = 0x01
WRAP_INFO = b"LOCA v1 photo key wrapping"
WRAP_AD_PREFIX = b"LOCA photo key v1" + b"\x00"
WRAPPED_LENGTH = 1 + NONCE_LENGTH + KEY_LENGTH + TAG_LENGTH  # 61


# ---------------------------------------------------------------------------
# Errors: one class per rejection, named like the Swift VaultCryptoError codes.

class LOCAError(Exception):
    """Base class of every rejection."""


class NotLOCA(LOCAError):
    pass


class UnsupportedVersion(LOCAError):
    pass


class UnknownAlgorithm(LOCAError):
    pass


class InvalidChunkSize(LOCAError):
    """Exponent outside 12...24."""


class FileTooLarge(LOCAError):
    """An original size that needs more than 2^32 - 1 chunks."""


class Truncated(LOCAError):
    pass


class TrailingBytes(LOCAError):
    pass


class WrongKey(LOCAError):
    pass


class AuthenticationFailed(LOCAError):
    def __init__(self, chunk):
        super().__init__(f"chunk {chunk} failed authentication")
        self.chunk = chunk


class KeyUnwrapFailed(LOCAError):
    pass


# ---------------------------------------------------------------------------
# Key schedule

def hkdf_extract(salt, ikm):
    """RFC 5869 HKDF-Extract with SHA-256: HMAC(key = salt, message = IKM).
    An empty salt is HashLen zero bytes (HMAC pads keys with zeros, so it is the same)."""
    mac = HMAC(salt if salt else bytes(32), hashes.SHA256())
    mac.update(ikm)
    return mac.finalize()


def hkdf_expand(prk, info, length):
    return HKDFExpand(algorithm=hashes.SHA256(), length=length, info=info).derive(prk)


def file_keys(file_key, nonce):
    """(payload key, key commitment) of one file."""
    if len(file_key) != KEY_LENGTH or len(nonce) != NONCE_LENGTH:
        raise ValueError("file key must be 32 bytes and nonce 12 bytes")
    prk = hkdf_extract(nonce, file_key)
    return hkdf_expand(prk, PAYLOAD_INFO, KEY_LENGTH), hkdf_expand(prk, COMMITMENT_INFO, COMMITMENT_LENGTH)


# ---------------------------------------------------------------------------
# Geometry

def chunk_count(size, exponent):
    return max(1, -(-size // (1 << exponent)))


def file_length(size, exponent):
    return HEADER_LENGTH + size + TAG_LENGTH * chunk_count(size, exponent)


def chunk_nonce(nonce, index, count):
    """header nonce XOR (7 zero bytes || u32 BE index || 0x01 if last chunk else 0x00)."""
    if not 0 <= index < count <= MAX_CHUNKS:
        raise ValueError("chunk index out of range")
    mask = bytes(7) + struct.pack(">I", index) + (b"\x01" if index == count - 1 else b"\x00")
    return bytes(a ^ b for a, b in zip(nonce, mask))


# ---------------------------------------------------------------------------
# Encryption

def encrypt(file_key, nonce, timestamp, plaintext, algorithm=CHACHA20_POLY1305, chunk_exponent=DEFAULT_EXPONENT):
    """A complete LOCA v1 file. Deterministic: the caller supplies the (fresh, random) nonce."""
    if algorithm not in ALGORITHMS:
        raise ValueError("unknown algorithm")
    if not MIN_EXPONENT <= chunk_exponent <= MAX_EXPONENT:
        raise ValueError("chunk exponent outside 12...24")
    if len(plaintext) > MAX_CHUNKS << chunk_exponent:
        raise ValueError("plaintext needs more than 2^32 - 1 chunks")
    if not 0 <= timestamp < 2**64:
        raise ValueError("timestamp must fit in a u64")
    payload_key, commitment = file_keys(file_key, nonce)
    header = HEADER_STRUCT.pack(MAGIC, VERSION, algorithm, chunk_exponent, nonce, len(plaintext), timestamp, commitment)
    aead = ALGORITHMS[algorithm](payload_key)
    size = 1 << chunk_exponent
    count = chunk_count(len(plaintext), chunk_exponent)
    body = []
    for index in range(count):
        chunk = plaintext[index * size:(index + 1) * size]
        # cryptography returns ciphertext || 16-byte tag, which is exactly the chunk layout.
        body.append(aead.encrypt(chunk_nonce(nonce, index, count), chunk, header))
    return header + b"".join(body)


# ---------------------------------------------------------------------------
# Decryption

def parse_header(data):
    """Structural checks that need no key, in the order of the spec. Returns the header fields."""
    if len(data) < HEADER_LENGTH:
        if len(data) >= 4 and data[:4] != MAGIC:
            raise NotLOCA("bad magic")
        raise Truncated(f"{len(data)} bytes, the header alone needs {HEADER_LENGTH}")
    magic, version, algorithm, exponent, nonce, size, timestamp, commitment = HEADER_STRUCT.unpack_from(data, 0)
    if magic != MAGIC:
        raise NotLOCA("bad magic")
    if version != VERSION:
        raise UnsupportedVersion(f"version {version}")
    if algorithm not in ALGORITHMS:
        raise UnknownAlgorithm(f"algorithm 0x{algorithm:02x}")
    if not MIN_EXPONENT <= exponent <= MAX_EXPONENT:
        raise InvalidChunkSize(f"exponent {exponent}")
    if size > MAX_CHUNKS << exponent:
        raise FileTooLarge(f"{size} bytes need more than 2^32 - 1 chunks of 2^{exponent}")
    expected = file_length(size, exponent)
    if len(data) < expected:
        raise Truncated(f"{len(data)} bytes, the header says {expected}")
    if len(data) > expected:
        raise TrailingBytes(f"{len(data)} bytes, the header says {expected}")
    return {
        "algorithm": algorithm, "exponent": exponent, "nonce": nonce, "size": size,
        "timestamp": timestamp, "commitment": commitment,
    }


def _verified_header(file_key, data):
    fields = parse_header(data)
    payload_key, commitment = file_keys(file_key, fields["nonce"])
    if not hmac.compare_digest(commitment, fields["commitment"]):
        raise WrongKey("the key commitment does not match")
    return fields, payload_key


def _open_chunk(aead, fields, header, data, index, count):
    size = 1 << fields["exponent"]
    length = size if index < count - 1 else fields["size"] - (count - 1) * size
    start = HEADER_LENGTH + index * (size + TAG_LENGTH)
    sealed = data[start:start + length + TAG_LENGTH]
    try:
        return aead.decrypt(chunk_nonce(fields["nonce"], index, count), sealed, header)
    except InvalidTag:
        raise AuthenticationFailed(index) from None


def decrypt(file_key, data):
    """The plaintext of a whole LOCA v1 file; raises a LOCAError and returns nothing if any check fails."""
    data = bytes(data)
    fields, payload_key = _verified_header(file_key, data)
    aead = ALGORITHMS[fields["algorithm"]](payload_key)
    header = data[:HEADER_LENGTH]
    count = chunk_count(fields["size"], fields["exponent"])
    return b"".join(_open_chunk(aead, fields, header, data, index, count) for index in range(count))


def decrypt_range(file_key, data, start, end):
    """Plaintext bytes start..<end, opening only the chunks that hold them."""
    data = bytes(data)
    fields, payload_key = _verified_header(file_key, data)
    if not 0 <= start <= end <= fields["size"]:
        raise ValueError("range outside the plaintext")
    if start == end:
        return b""
    aead = ALGORITHMS[fields["algorithm"]](payload_key)
    size = 1 << fields["exponent"]
    count = chunk_count(fields["size"], fields["exponent"])
    first, last = start // size, (end - 1) // size
    opened = b"".join(_open_chunk(aead, fields, data[:HEADER_LENGTH], data, i, count) for i in range(first, last + 1))
    return opened[start - first * size:end - first * size]


# ---------------------------------------------------------------------------
# Photo key wrapping

def key_encryption_key(master_key):
    # The one-shot HKDF class (salt None = 32 zero bytes) rather than hkdf_extract above;
    # the self-test checks that both give the same bytes.
    if len(master_key) != KEY_LENGTH:
        raise ValueError("master key must be 32 bytes")
    return HKDF(algorithm=hashes.SHA256(), length=KEY_LENGTH, salt=None, info=WRAP_INFO).derive(master_key)


def wrap_photo_key(master_key, photo_id, nonce, photo_key):
    """0x01 || nonce (12) || ChaCha20-Poly1305 ciphertext (32) || tag (16): 61 bytes."""
    if len(nonce) != NONCE_LENGTH or len(photo_key) != KEY_LENGTH:
        raise ValueError("nonce must be 12 bytes and photo key 32 bytes")
    ad = WRAP_AD_PREFIX + photo_id.encode("utf-8")
    sealed = ChaCha20Poly1305(key_encryption_key(master_key)).encrypt(nonce, photo_key, ad)
    return bytes([WRAP_VERSION]) + nonce + sealed


def unwrap_photo_key(master_key, photo_id, wrapped):
    wrapped = bytes(wrapped)
    if len(wrapped) != WRAPPED_LENGTH or wrapped[0] != WRAP_VERSION:
        raise KeyUnwrapFailed("malformed wrapped key")
    ad = WRAP_AD_PREFIX + photo_id.encode("utf-8")
    try:
        return ChaCha20Poly1305(key_encryption_key(master_key)).decrypt(wrapped[1:13], wrapped[13:], ad)
    except InvalidTag:
        raise KeyUnwrapFailed("wrong photo, wrong master key, or damaged") from None


# ---------------------------------------------------------------------------
# Known-answer vectors

VECTOR_KEY = bytes(range(0x00, 0x20))
VECTOR_NONCE = bytes(range(0xA0, 0xAC))
VECTOR_TIMESTAMP = 1_700_000_000
HEAD_LENGTH = 96  # header + the first 32 body bytes are stored in full


def pattern(length):
    return bytes(i % 251 for i in range(length))


def file_cases():
    """(name, algorithm, exponent, plaintext prefix, pattern length)."""
    cases = []
    for algorithm, label in ((AES_256_GCM, "AES-256-GCM"), (CHACHA20_POLY1305, "ChaCha20-Poly1305")):
        cases += [
            (f"{label}, empty", algorithm, 12, b"", 0),
            (f"{label}, \"hello\"", algorithm, 12, b"hello", 0),
            (f"{label}, exactly one 4096-byte chunk", algorithm, 12, b"", 4096),
            (f"{label}, 4097 bytes, two chunks", algorithm, 12, b"", 4097),
            (f"{label}, 10000 bytes, three chunks", algorithm, 12, b"", 10000),
        ]
    cases.append(("ChaCha20-Poly1305, 100 bytes, 64 KiB chunks", CHACHA20_POLY1305, 16, b"", 100))
    return cases


def wrap_cases():
    """(name, master key, photo id, nonce, photo key)."""
    return [
        ("photo-1", bytes(range(0x40, 0x60)), "photo-1", bytes(range(0xC0, 0xCC)), bytes(range(0x60, 0x80))),
        ("UUID id", bytes(range(0x40, 0x60)), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
         bytes(range(0xD0, 0xDC)), bytes(range(0x80, 0xA0))),
    ]


def build_file_vector(case):
    name, algorithm, exponent, prefix, length = case
    plaintext = prefix + pattern(length)
    data = encrypt(VECTOR_KEY, VECTOR_NONCE, VECTOR_TIMESTAMP, plaintext, algorithm, exponent)
    return plaintext, data


def zero_key_hmac(data):
    """HMAC-SHA256 keyed with 32 zero bytes = HKDF-Extract(salt: empty, IKM: data)."""
    return hmac.new(bytes(32), data, hashlib.sha256).digest()


def swift_string(value, indent, width=64):
    """A Swift string literal of lowercase hex, split with + into lines shorter than 140 characters."""
    text = value.hex()
    if len(text) <= width:
        return f'"{text}"'
    parts = [text[i:i + width] for i in range(0, len(text), width)]
    pad = " " * (indent + 4)
    return f'"{parts[0]}"' + "".join(f'\n{pad}+ "{part}"' for part in parts[1:])


def swift_vectors():
    out = []
    w = out.append
    w("// Generated by scripts/loca_reference.py --swift-vectors; do not edit by hand.")
    w("// Regenerate: python3 scripts/loca_reference.py --swift-vectors > Tests/VaultCryptoTests/LOCAVectors.swift")
    w("")
    w("/// LOCA v1 known-answer vectors, produced by scripts/loca_reference.py (an independent implementation")
    w("/// with Python `cryptography`/OpenSSL, written from Docs/LOCA-format.md).")
    w("///")
    w("/// Every byte string is lowercase hex without spaces (\"\" is zero bytes); decode with `hexBytes(_:)`.")
    w("enum LOCAVectors {")
    w("    /// One encrypted file. To check it:")
    w("    /// 1. plaintext = `hexBytes(plaintextPrefix)` followed by `patternLength` bytes where byte i is `UInt8(i % 251)`;")
    w("    /// 2. file = LOCA v1 encryption of plaintext under `key`, `nonce`, `timestamp`, `algorithm`, `chunkExponent`;")
    w("    /// 3. `file.count == fileLength`;")
    w("    /// 4. the first `min(fileLength, 96)` bytes of file (the header and the start of chunk 0) equal `fileHead`;")
    w("    /// 5. HMAC-SHA256 of the whole file keyed with 32 zero bytes equals `fileDigest`; this is")
    w("    ///    `HKDF.extract(salt: [], inputKeyMaterial: file)`, so no SHA-256 API is needed;")
    w("    /// 6. `fileSHA256` is the plain SHA-256 of the whole file, for implementations that have one (CryptoKit);")
    w("    /// 7. decrypting file gives plaintext back.")
    w("    /// `payloadKey` is the per-file key HKDF-Expand(PRK, \"LOCA v1 payload key\", 32), for debugging;")
    w("    /// the key commitment is bytes 36..<64 of `fileHead`.")
    w("    struct FileCase: Sendable {")
    w("        let name: String")
    w("        let algorithm: UInt8")
    w("        let chunkExponent: UInt8")
    w("        let key: String")
    w("        let nonce: String")
    w("        let timestamp: UInt64")
    w("        let plaintextPrefix: String")
    w("        let patternLength: Int")
    w("        let payloadKey: String")
    w("        let fileLength: Int")
    w("        let fileHead: String")
    w("        let fileDigest: String")
    w("        let fileSHA256: String")
    w("    }")
    w("")
    w("    static let files: [FileCase] = [")
    for case in file_cases():
        name, algorithm, exponent, prefix, length = case
        _, data = build_file_vector(case)
        payload_key, _ = file_keys(VECTOR_KEY, VECTOR_NONCE)
        swift_name = name.replace('"', '\\"')
        w("        FileCase(")
        w(f'            name: "{swift_name}",')
        w(f"            algorithm: 0x{algorithm:02x},")
        w(f"            chunkExponent: {exponent},")
        w(f"            key: {swift_string(VECTOR_KEY, 12)},")
        w(f"            nonce: {swift_string(VECTOR_NONCE, 12)},")
        w(f"            timestamp: {VECTOR_TIMESTAMP},")
        w(f"            plaintextPrefix: {swift_string(prefix, 12)},")
        w(f"            patternLength: {length},")
        w(f"            payloadKey: {swift_string(payload_key, 12)},")
        w(f"            fileLength: {len(data)},")
        w(f"            fileHead: {swift_string(data[:HEAD_LENGTH], 12)},")
        w(f"            fileDigest: {swift_string(zero_key_hmac(data), 12)},")
        w(f"            fileSHA256: {swift_string(hashlib.sha256(data).digest(), 12)}")
        w("        ),")
    w("    ]")
    w("")
    w("    /// One wrapped photo key: `wrapped` = 0x01 ‖ nonce ‖ ChaCha20-Poly1305(KEK, nonce, photoKey,")
    w("    /// AD: \"LOCA photo key v1\" ‖ 0x00 ‖ UTF-8 photoID) ‖ tag, 61 bytes, with")
    w("    /// KEK = HKDF-SHA256(IKM: masterKey, salt: empty, info: \"LOCA v1 photo key wrapping\", 32) given as `kek`.")
    w("    struct WrapCase: Sendable {")
    w("        let name: String")
    w("        let masterKey: String")
    w("        let photoID: String")
    w("        let nonce: String")
    w("        let photoKey: String")
    w("        let kek: String")
    w("        let wrapped: String")
    w("    }")
    w("")
    w("    static let wraps: [WrapCase] = [")
    for name, master, photo_id, nonce, photo_key in wrap_cases():
        wrapped = wrap_photo_key(master, photo_id, nonce, photo_key)
        w("        WrapCase(")
        w(f'            name: "{name}",')
        w(f"            masterKey: {swift_string(master, 12)},")
        w(f'            photoID: "{photo_id}",')
        w(f"            nonce: {swift_string(nonce, 12)},")
        w(f"            photoKey: {swift_string(photo_key, 12)},")
        w(f"            kek: {swift_string(key_encryption_key(master), 12)},")
        w(f"            wrapped: {swift_string(wrapped, 12)}")
        w("        ),")
    w("    ]")
    w("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Self-test

def expect_error(kind, function, *args):
    try:
        function(*args)
    except kind:
        return
    except LOCAError as error:
        raise AssertionError(f"expected {kind.__name__}, got {type(error).__name__}: {error}") from None
    raise AssertionError(f"expected {kind.__name__}, nothing was raised")


def expect_rejected(function, *args):
    try:
        function(*args)
    except LOCAError:
        return
    raise AssertionError("tampered data was accepted")


def self_test():
    checks = 0

    # HKDF against RFC 5869 A.1, and the two HKDF code paths against each other.
    prk = hkdf_extract(bytes(range(13)), bytes([0x0B] * 22))
    assert prk.hex() == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
    okm = hkdf_expand(prk, bytes(range(0xF0, 0xFA)), 42)
    assert okm.hex() == ("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                         "34007208d5b887185865")
    master = bytes(range(0x40, 0x60))
    assert key_encryption_key(master) == hkdf_expand(hkdf_extract(b"", master), WRAP_INFO, 32)
    assert zero_key_hmac(b"abc") == hkdf_extract(b"", b"abc")
    checks += 4

    # Chunk nonces: counter in bytes 7..10, last flag in byte 11.
    nonce = bytes(12)
    assert chunk_nonce(nonce, 0, 1).hex() == "000000000000000000000001"
    assert chunk_nonce(nonce, 0, 3).hex() == "000000000000000000000000"
    assert chunk_nonce(nonce, 2, 3).hex() == "000000000000000000000201"
    assert chunk_nonce(nonce, 0x01020304, MAX_CHUNKS).hex() == "000000000000000102030400"
    checks += 4

    # Every vector: round trip, exact length, ranges, tampering of every byte.
    for case in file_cases():
        name, algorithm, exponent, _, _ = case
        plaintext, data = build_file_vector(case)
        assert len(data) == file_length(len(plaintext), exponent)
        assert decrypt(VECTOR_KEY, data) == plaintext, name
        size = 1 << exponent
        count = chunk_count(len(plaintext), exponent)
        # One chunk: exactly the seed's layout, header || ciphertext || tag.
        if count == 1:
            assert len(data) == HEADER_LENGTH + len(plaintext) + TAG_LENGTH
        for start, end in ((0, len(plaintext)), (0, 0), (len(plaintext) // 3, len(plaintext) // 2),
                           (max(0, size - 1), min(len(plaintext), size + 1))):
            if start <= end <= len(plaintext):
                assert decrypt_range(VECTOR_KEY, data, start, end) == plaintext[start:end]
        for index in range(len(data)):
            for flip in (0x01, 0x80):
                damaged = bytearray(data)
                damaged[index] ^= flip
                expect_rejected(decrypt, VECTOR_KEY, damaged)
                checks += 1
        for cut in range(len(data)):
            expect_rejected(decrypt, VECTOR_KEY, data[:cut])
        expect_error(TrailingBytes, decrypt, VECTOR_KEY, data + b"\x00")
        expect_error(WrongKey, decrypt, bytes(32), data)
        if count >= 2:
            first = data[HEADER_LENGTH:HEADER_LENGTH + size + TAG_LENGTH]
            second = data[HEADER_LENGTH + size + TAG_LENGTH:HEADER_LENGTH + 2 * (size + TAG_LENGTH)]
            rest = data[HEADER_LENGTH + 2 * (size + TAG_LENGTH):]
            swapped = data[:HEADER_LENGTH] + second + first + rest
            expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, swapped)
            if len(second) == len(first):  # chunk 1 is a full chunk: replace it by a copy of chunk 0
                duplicated = data[:HEADER_LENGTH] + first + first + rest
                expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, duplicated)
            else:  # swapping changed where the short chunk sits; also try appending a copy
                expect_error(TrailingBytes, decrypt, VECTOR_KEY, data + second)
            # Drop the last chunk and fix the size in the header: the header is authenticated,
            # so chunk 0 fails (and a re-authenticated header would still need the last-chunk flag).
            shorter = bytearray(data[:HEADER_LENGTH] + first + (second if count > 2 else b""))
            struct.pack_into(">Q", shorter, 20, (count - 1) * size)
            expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, bytes(shorter))
        checks += len(data) + 3
        print(f"ok  {name}: {len(data)} bytes, {count} chunk(s), every byte flip rejected")

    # The last-chunk flag on its own: a file cut at a chunk boundary whose header is rebuilt
    # honestly by someone holding the key still cannot reuse the old chunks, because chunk 0
    # was sealed as "not last".
    plaintext = pattern(8192)
    data = encrypt(VECTOR_KEY, VECTOR_NONCE, VECTOR_TIMESTAMP, plaintext, CHACHA20_POLY1305, 12)
    forged_header = encrypt(VECTOR_KEY, VECTOR_NONCE, VECTOR_TIMESTAMP, plaintext[:4096], CHACHA20_POLY1305, 12)[:64]
    payload_key, _ = file_keys(VECTOR_KEY, VECTOR_NONCE)
    chunk0 = data[64:64 + 4096 + 16]
    try:
        ChaCha20Poly1305(payload_key).decrypt(chunk_nonce(VECTOR_NONCE, 0, 1), chunk0, forged_header)
        raise AssertionError("a non-last chunk opened as a last chunk")
    except InvalidTag:
        pass
    checks += 1

    # Structural rejections, each with its own error, in the documented order.
    data = encrypt(VECTOR_KEY, VECTOR_NONCE, VECTOR_TIMESTAMP, b"hello", CHACHA20_POLY1305, 12)

    def patched(offset, raw):
        damaged = bytearray(data)
        damaged[offset:offset + len(raw)] = raw
        return bytes(damaged)

    def flipped(offset):
        return patched(offset, bytes([data[offset] ^ 0xFF]))

    expect_error(NotLOCA, decrypt, VECTOR_KEY, b"JPEG" + data[4:])
    expect_error(NotLOCA, decrypt, VECTOR_KEY, b"\xff\xd8\xff\xe0")
    expect_error(Truncated, decrypt, VECTOR_KEY, data[:63])
    expect_error(Truncated, decrypt, VECTOR_KEY, b"")
    expect_error(UnsupportedVersion, decrypt, VECTOR_KEY, patched(4, b"\x00\x02"))
    expect_error(UnsupportedVersion, decrypt, VECTOR_KEY, patched(4, b"\x01\x00"))
    expect_error(UnknownAlgorithm, decrypt, VECTOR_KEY, patched(6, b"\x00"))
    expect_error(UnknownAlgorithm, decrypt, VECTOR_KEY, patched(6, b"\x03"))
    expect_error(InvalidChunkSize, decrypt, VECTOR_KEY, patched(7, b"\x0b"))
    expect_error(InvalidChunkSize, decrypt, VECTOR_KEY, patched(7, b"\x19"))
    expect_error(FileTooLarge, decrypt, VECTOR_KEY, patched(20, struct.pack(">Q", (MAX_CHUNKS << 12) + 1)))
    expect_error(Truncated, decrypt, VECTOR_KEY, patched(20, struct.pack(">Q", MAX_CHUNKS << 12)))
    expect_error(Truncated, decrypt, VECTOR_KEY, patched(20, struct.pack(">Q", 6)))
    expect_error(TrailingBytes, decrypt, VECTOR_KEY, patched(20, struct.pack(">Q", 4)))
    expect_error(WrongKey, decrypt, VECTOR_KEY, flipped(36))
    expect_error(WrongKey, decrypt, VECTOR_KEY, flipped(8))  # the nonce salts the commitment
    expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, flipped(35))  # timestamp is AD
    expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, patched(7, b"\x0d"))  # same length, other AD
    expect_error(AuthenticationFailed, decrypt, VECTOR_KEY, patched(6, b"\x01"))  # other cipher, same key
    checks += 19

    # Round trips at the chunk boundaries, both algorithms.
    for algorithm in ALGORITHMS:
        for length in (0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 3 * 4096 + 5):
            plaintext = pattern(length)
            data = encrypt(VECTOR_KEY, VECTOR_NONCE, 0, plaintext, algorithm, 12)
            assert decrypt(VECTOR_KEY, data) == plaintext
            checks += 1

    # Photo key wrapping.
    for name, master, photo_id, nonce, photo_key in wrap_cases():
        wrapped = wrap_photo_key(master, photo_id, nonce, photo_key)
        assert len(wrapped) == WRAPPED_LENGTH and wrapped[0] == 0x01 and wrapped[1:13] == nonce
        assert unwrap_photo_key(master, photo_id, wrapped) == photo_key
        expect_error(KeyUnwrapFailed, unwrap_photo_key, master, photo_id + "x", wrapped)
        if photo_id.lower() != photo_id:  # ids are bytes: case matters
            expect_error(KeyUnwrapFailed, unwrap_photo_key, master, photo_id.lower(), wrapped)
        expect_error(KeyUnwrapFailed, unwrap_photo_key, bytes(32), photo_id, wrapped)
        expect_error(KeyUnwrapFailed, unwrap_photo_key, master, photo_id, wrapped[:-1])
        expect_error(KeyUnwrapFailed, unwrap_photo_key, master, photo_id, wrapped + b"\x00")
        for index in range(len(wrapped)):
            damaged = bytearray(wrapped)
            damaged[index] ^= 0x01
            expect_error(KeyUnwrapFailed, unwrap_photo_key, master, photo_id, bytes(damaged))
            checks += 1
        print(f"ok  wrap {name}: every byte flip, other id, other master key rejected")

    print(f"self-test passed: {checks} checks")


def run_command_line(description, vectors_file, make_swift_vectors, run_self_test):
    """The --swift-vectors / --self-test command line shared by the reference scripts."""
    parser = argparse.ArgumentParser(description=description)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--swift-vectors", action="store_true", help=f"print {vectors_file}")
    group.add_argument("--self-test", action="store_true", help="round trips, rejections and tamper detection")
    arguments = parser.parse_args()
    if arguments.swift_vectors:
        sys.stdout.write(make_swift_vectors())
    else:
        run_self_test()


def main():
    run_command_line(__doc__.split("\n")[0], "Tests/VaultCryptoTests/LOCAVectors.swift", swift_vectors, self_test)


if __name__ == "__main__":
    main()
