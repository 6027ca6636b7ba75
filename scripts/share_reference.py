#!/usr/bin/env python3
"""Independent reference implementation of `.locaphoto` share bundles (version 1.0).

Written from Docs/Share-bundles.md, not from the Swift sources, with the Python
`cryptography` package (OpenSSL: X25519, Ed25519, ChaCha20-Poly1305, HMAC, Argon2id)
instead of libsodium, and with HPKE (RFC 9180) built here from those primitives.
The LOCA payloads inside a bundle use scripts/loca_reference.py, the reference for
Docs/LOCA-format.md.

    python3 scripts/share_reference.py --self-test
        RFC 9180 vector, round trips, every refusal, every byte flip of every vector
    python3 scripts/share_reference.py --swift-vectors > Tests/VaultCryptoTests/ShareBundleVectors.swift
        the known-answer vectors as Swift constants

Public functions: identity_from_seed, identity_text, parse_identity_text, fingerprint,
create_bundle, open_bundle, transcript, hpke_seal, hpke_open.
"""

import base64
import datetime
import hashlib
import hmac
import json
import os
import re
import struct
import sys

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loca_reference as loca  # noqa: E402  (the LOCA v1 reference, Docs/LOCA-format.md)

# ---------------------------------------------------------------------------
# Constants (Docs/Share-bundles.md)

BUNDLE_VERSION = "1.0"
TEXT_PREFIX = "memora-share1:"
X25519_INFO = b"memora sharing x25519"
ED25519_INFO = b"memora sharing ed25519"
FINGERPRINT_SALT = b"memora fingerprint"
METADATA_INFO = b"LOCA v1 share metadata key"
HPKE_INFO = b"LOCA share v1"
KEY_AD_PREFIX = b"LOCA share key v1\x00"
TRANSCRIPT_PREFIX = b"LOCAPHOTO v1\x00"
X25519_RECIPIENT = b"x25519"
PASSPHRASE_RECIPIENT = b"passphrase argon2id"
MAX_PHOTO_ID_BYTES = 128
DEFAULT_MAXIMUM_SIZE = (256 << 20) + (1 << 20)
ARGON2_OPERATIONS = range(1, 65)
ARGON2_MEMORY_BYTES = range(8192, (2 << 30) + 1)

# RFC 9180 suite: DHKEM(X25519, HKDF-SHA256) 0x0020, HKDF-SHA256 0x0001, ChaCha20Poly1305 0x0003.
KEM_SUITE = b"KEM" + struct.pack(">H", 0x0020)
HPKE_SUITE = b"HPKE" + struct.pack(">HHH", 0x0020, 0x0001, 0x0003)


class ShareInvalid(Exception):
    """A bundle was refused (Swift: VaultCryptoError.Code.shareInvalid), nothing was decrypted."""


# ---------------------------------------------------------------------------
# Small helpers

def hkdf(ikm, info, length=32, salt=b""):
    return loca.hkdf_expand(loca.hkdf_extract(salt, ikm), info, length)


def u64(value):
    return struct.pack(">Q", value)


def b64(data):
    return base64.b64encode(data).decode("ascii")


def b64_decode(text, field, length=None):
    """Standard base64 with padding, strictly (no whitespace, no other alphabet)."""
    if not isinstance(text, str):
        raise ShareInvalid(f"{field} is not a string")
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ShareInvalid(f"{field} is not base64") from None
    if b64(data) != text:
        # A non-canonical spelling (non-zero unused bits): this reference refuses it.
        raise ShareInvalid(f"{field} is not canonical base64")
    if length is not None and len(data) != length:
        raise ShareInvalid(f"{field} is {len(data)} bytes, expected {length}")
    return data


def raw_public(key):
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


# ---------------------------------------------------------------------------
# Sharing identities

class Identity:
    """The two key pairs derived from a 32-byte seed."""

    def __init__(self, seed):
        if len(seed) != 32:
            raise ValueError("a sharing identity seed is 32 bytes")
        self.agreement_secret = hkdf(seed, X25519_INFO)
        self.signing_seed = hkdf(seed, ED25519_INFO)
        self._x25519 = X25519PrivateKey.from_private_bytes(self.agreement_secret)
        self._ed25519 = Ed25519PrivateKey.from_private_bytes(self.signing_seed)
        self.agreement_key = raw_public(self._x25519.public_key())
        self.signing_key = raw_public(self._ed25519.public_key())

    @property
    def public(self):
        return self.agreement_key + self.signing_key

    def sign(self, message):
        return self._ed25519.sign(message)


def identity_from_seed(seed):
    return Identity(seed)


def identity_text(public):
    """`memora-share1:` + base64url (no padding) of X25519 key || Ed25519 key."""
    return TEXT_PREFIX + base64.urlsafe_b64encode(public).decode("ascii").rstrip("=")


def parse_identity_text(text):
    """The 64 public bytes, or None. Surrounding whitespace is ignored."""
    text = text.strip()
    if not text.startswith(TEXT_PREFIX):
        return None
    body = text[len(TEXT_PREFIX):]
    if body.endswith("=="):
        body = body[:-2]
    elif body.endswith("="):
        body = body[:-1]  # padding is tolerated, never written
    if len(body) != 86 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in body):
        return None
    data = base64.urlsafe_b64decode(body + "==")
    if identity_text(data) != TEXT_PREFIX + body:
        return None  # unused low bits set: not canonical
    return data


def fingerprint(public):
    """HMAC-SHA256(key: "memora fingerprint", public) → 16 bytes as 8 groups of 4 hex digits."""
    digest = hmac.new(FINGERPRINT_SALT, public, hashlib.sha256).hexdigest()[:32]
    return " ".join(digest[i:i + 4] for i in range(0, 32, 4))


# ---------------------------------------------------------------------------
# HPKE, RFC 9180 base mode, single shot, X25519 / HKDF-SHA256 / ChaCha20-Poly1305

def labeled_extract(suite, salt, label, ikm):
    return loca.hkdf_extract(salt, b"HPKE-v1" + suite + label + ikm)


def labeled_expand(suite, prk, label, info, length):
    return loca.hkdf_expand(prk, struct.pack(">H", length) + b"HPKE-v1" + suite + label + info, length)


def hpke_context(dh, enc, recipient_public, info):
    if dh == bytes(32):
        raise ShareInvalid("X25519 gave the all-zero shared secret (a low-order key)")
    eae_prk = labeled_extract(KEM_SUITE, b"", b"eae_prk", dh)
    shared_secret = labeled_expand(KEM_SUITE, eae_prk, b"shared_secret", enc + recipient_public, 32)
    psk_id_hash = labeled_extract(HPKE_SUITE, b"", b"psk_id_hash", b"")
    info_hash = labeled_extract(HPKE_SUITE, b"", b"info_hash", info)
    context = b"\x00" + psk_id_hash + info_hash
    secret = labeled_extract(HPKE_SUITE, shared_secret, b"secret", b"")
    key = labeled_expand(HPKE_SUITE, secret, b"key", context, 32)
    base_nonce = labeled_expand(HPKE_SUITE, secret, b"base_nonce", context, 12)
    return key, base_nonce


def x25519(secret, public):
    try:
        return X25519PrivateKey.from_private_bytes(secret).exchange(X25519PublicKey.from_public_bytes(public))
    except ValueError:  # OpenSSL refuses an all-zero result
        raise ShareInvalid("X25519 gave the all-zero shared secret (a low-order key)") from None


def hpke_seal(recipient_public, info, aad, plaintext, ephemeral_secret):
    """(enc, ciphertext || tag); sequence number 0, so the nonce is base_nonce."""
    enc = raw_public(X25519PrivateKey.from_private_bytes(ephemeral_secret).public_key())
    key, nonce = hpke_context(x25519(ephemeral_secret, recipient_public), enc, recipient_public, info)
    return enc, ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad)


def hpke_open(recipient_secret, enc, info, aad, sealed):
    recipient_public = raw_public(X25519PrivateKey.from_private_bytes(recipient_secret).public_key())
    key, nonce = hpke_context(x25519(recipient_secret, enc), enc, recipient_public, info)
    try:
        return ChaCha20Poly1305(key).decrypt(nonce, sealed, aad)
    except InvalidTag:
        raise ShareInvalid("the photo key does not decrypt") from None


# ---------------------------------------------------------------------------
# Bundle pieces

def argon2id(passphrase, salt, operations, memory_bytes):
    """libsodium crypto_pwhash ALG_ARGON2ID13: m = memory bytes / 1024 KiB, one lane, 32 bytes."""
    return Argon2id(salt=salt, length=32, iterations=operations, lanes=1,
                    memory_cost=memory_bytes // 1024).derive(passphrase.encode("utf-8"))


def key_associated_data(photo_id, sender_signing_key):
    return KEY_AD_PREFIX + sender_signing_key + photo_id.encode("utf-8")


def metadata_key(content_key):
    return hkdf(content_key, METADATA_INFO)


def recipient_field(recipient):
    """The recipient's bytes in the transcript."""
    if recipient["type"] == "x25519":
        return X25519_RECIPIENT + recipient["publicKey"]
    return PASSPHRASE_RECIPIENT + u64(recipient["operations"]) + u64(recipient["memoryBytes"]) + recipient["salt"]


def transcript(version, photo_id, encrypted_data, encrypted_key, iv, auth_tag, recipient, sender_public, metadata):
    fields = [version.encode("utf-8"), photo_id.encode("utf-8"), encrypted_data, encrypted_key, iv, auth_tag,
              recipient_field(recipient), sender_public, metadata]
    return TRANSCRIPT_PREFIX + b"".join(u64(len(field)) + field for field in fields)


def iso8601(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def canonical_json(value):
    """What Swift's JSONEncoder writes with sortedKeys and withoutEscapingSlashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def metadata_json(metadata):
    """`metadata` with `captureDate` as Unix seconds (int) or absent; absent keys are omitted."""
    value = {"originalFilename": metadata["originalFilename"], "format": metadata["format"],
             "originalSize": metadata["originalSize"]}
    if metadata.get("captureDate") is not None:
        value["captureDate"] = iso8601(metadata["captureDate"])
    for key in ("width", "height"):
        if metadata.get(key) is not None:
            value[key] = metadata[key]
    return canonical_json(value)


def parse_metadata(data):
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ShareInvalid("its metadata is not readable") from None
    if not isinstance(value, dict):
        raise ShareInvalid("its metadata is not a JSON object")
    result = {}
    for key, kind in (("originalFilename", str), ("format", str), ("originalSize", int)):
        if not isinstance(value.get(key), kind) or isinstance(value.get(key), bool):
            raise ShareInvalid(f"its metadata lacks {key}")
        result[key] = value[key]
    date = value.get("captureDate")
    if date is not None:
        # Written as YYYY-MM-DDTHH:MM:SSZ; fractional seconds are accepted when reading (and dropped).
        match = re.fullmatch(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z", date) if isinstance(date, str) else None
        try:
            parsed = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S") if match else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise ShareInvalid("its captureDate is not YYYY-MM-DDTHH:MM:SSZ")
        result["captureDate"] = int(parsed.replace(tzinfo=datetime.timezone.utc).timestamp())
    else:
        result["captureDate"] = None
    for key in ("width", "height"):
        if value.get(key) is not None and (not isinstance(value[key], int) or isinstance(value[key], bool)):
            raise ShareInvalid(f"its {key} is not an integer")
        result[key] = value.get(key)
    return result


# ---------------------------------------------------------------------------
# Creating

def create_bundle(contents, metadata, photo_id, sender, recipient, randomness):
    """The bundle's bytes. `recipient` is {"type": "x25519", "publicKey": 32 bytes} or
    {"type": "passphrase", "passphrase": str, "operations": int, "memoryBytes": int}.
    `randomness` holds contentKey, photoNonce, metadataNonce, timestamp, and
    ephemeralSecret (x25519) or salt and keyNonce (passphrase)."""
    content_key = randomness["contentKey"]
    encrypted_data = loca.encrypt(content_key, randomness["photoNonce"], randomness["timestamp"], contents,
                                  loca.CHACHA20_POLY1305, 16)
    encrypted_metadata = loca.encrypt(metadata_key(content_key), randomness["metadataNonce"], randomness["timestamp"],
                                      metadata_json(metadata), loca.CHACHA20_POLY1305, 16)
    aad = key_associated_data(photo_id, sender.signing_key)
    if recipient["type"] == "x25519":
        iv, sealed = hpke_seal(recipient["publicKey"], HPKE_INFO, aad, content_key, randomness["ephemeralSecret"])
        signed_recipient = {"type": "x25519", "publicKey": recipient["publicKey"]}
        wire_recipient = {"type": "x25519", "publicKey": b64(recipient["publicKey"])}
    else:
        if recipient["operations"] not in ARGON2_OPERATIONS or recipient["memoryBytes"] not in ARGON2_MEMORY_BYTES:
            raise ValueError("Argon2id parameters out of range")
        salt, iv = randomness["salt"], randomness["keyNonce"]
        wrapping_key = argon2id(recipient["passphrase"], salt, recipient["operations"], recipient["memoryBytes"])
        sealed = ChaCha20Poly1305(wrapping_key).encrypt(iv, content_key, aad)
        signed_recipient = {"type": "passphrase", "operations": recipient["operations"],
                            "memoryBytes": recipient["memoryBytes"], "salt": salt}
        wire_recipient = {"type": "passphrase", "kdf": "argon2id", "operations": recipient["operations"],
                          "memoryBytes": recipient["memoryBytes"], "salt": b64(salt)}
    encrypted_key, auth_tag = sealed[:32], sealed[32:]
    signature = sender.sign(transcript(BUNDLE_VERSION, photo_id, encrypted_data, encrypted_key, iv, auth_tag,
                                       signed_recipient, sender.public, encrypted_metadata))
    return canonical_json({
        "version": BUNDLE_VERSION,
        "photo": {"id": photo_id, "encryptedData": b64(encrypted_data), "encryptedKey": b64(encrypted_key),
                  "iv": b64(iv), "authTag": b64(auth_tag)},
        "recipient": wire_recipient,
        "sender": identity_text(sender.public),
        "metadata": b64(encrypted_metadata),
        "signature": b64(signature),
    })


# ---------------------------------------------------------------------------
# Opening, in the order of Docs/Share-bundles.md "Opening"

def parse_bundle(data, maximum_size=DEFAULT_MAXIMUM_SIZE):
    """Steps 1-4: everything that needs no key. Returns the decoded fields and the transcript."""
    if len(data) > maximum_size:
        raise ShareInvalid(f"it is {len(data)} bytes, over the limit of {maximum_size}")
    try:
        wire = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ShareInvalid("not a .locaphoto bundle (not JSON)") from None
    if not isinstance(wire, dict) or not isinstance(wire.get("photo"), dict) or not isinstance(wire.get("recipient"), dict):
        raise ShareInvalid("not a .locaphoto bundle")
    for key in ("version", "sender", "metadata", "signature"):
        if not isinstance(wire.get(key), str):
            raise ShareInvalid(f"{key} is missing")
    photo, recipient = wire["photo"], wire["recipient"]
    for key in ("id", "encryptedData", "encryptedKey", "iv", "authTag"):
        if not isinstance(photo.get(key), str):
            raise ShareInvalid(f"photo.{key} is missing")
    if not isinstance(recipient.get("type"), str):
        raise ShareInvalid("recipient.type is missing")
    if wire["version"] != BUNDLE_VERSION:
        raise ShareInvalid(f"version {wire['version'][:20]!r} is not supported")
    photo_id = photo["id"]
    if not photo_id or len(photo_id.encode("utf-8")) > MAX_PHOTO_ID_BYTES:
        raise ShareInvalid("the photo id is missing or too long")
    fields = {"version": wire["version"], "photoID": photo_id,
              "encryptedData": b64_decode(photo["encryptedData"], "photo.encryptedData"),
              "encryptedKey": b64_decode(photo["encryptedKey"], "photo.encryptedKey", 32),
              "authTag": b64_decode(photo["authTag"], "photo.authTag", 16),
              "metadata": b64_decode(wire["metadata"], "metadata"),
              "signature": b64_decode(wire["signature"], "signature", 64)}
    sender = parse_identity_text(wire["sender"])
    if sender is None:
        raise ShareInvalid("sender is not a sharing identity")
    fields["sender"] = sender
    if recipient["type"] == "x25519":
        if not isinstance(recipient.get("publicKey"), str):
            raise ShareInvalid("recipient.publicKey is missing")
        fields["recipient"] = {"type": "x25519", "publicKey": b64_decode(recipient["publicKey"], "recipient.publicKey", 32)}
        fields["iv"] = b64_decode(photo["iv"], "photo.iv", 32)
    elif recipient["type"] == "passphrase":
        operations, memory = recipient.get("operations"), recipient.get("memoryBytes")
        if recipient.get("kdf") != "argon2id" or type(operations) is not int or type(memory) is not int:
            raise ShareInvalid("the passphrase parameters are incomplete")
        if operations not in ARGON2_OPERATIONS or memory not in ARGON2_MEMORY_BYTES:
            raise ShareInvalid("its Argon2id parameters are out of range")
        if not isinstance(recipient.get("salt"), str):
            raise ShareInvalid("recipient.salt is missing")
        fields["recipient"] = {"type": "passphrase", "operations": operations, "memoryBytes": memory,
                               "salt": b64_decode(recipient["salt"], "recipient.salt", 16)}
        fields["iv"] = b64_decode(photo["iv"], "photo.iv", 12)
    else:
        raise ShareInvalid("unknown recipient type")
    for name in ("encryptedData", "metadata"):
        try:
            loca.parse_header(fields[name])  # structure and exact length; LOCA errors pass through
        except loca.LOCAError as error:
            raise ShareInvalid(f"{name}: {type(error).__name__}: {error}") from None
    fields["transcript"] = transcript(fields["version"], photo_id, fields["encryptedData"], fields["encryptedKey"],
                                      fields["iv"], fields["authTag"], fields["recipient"], sender, fields["metadata"])
    return fields


def open_bundle(data, identity=None, passphrase=None, expected_sender=None, maximum_size=DEFAULT_MAXIMUM_SIZE):
    """(contents, metadata, photo id, sender's 64 public bytes); raises ShareInvalid before releasing anything."""
    fields = parse_bundle(data, maximum_size)
    if expected_sender is not None and expected_sender != fields["sender"]:
        raise ShareInvalid("signed by someone else than the expected sender")
    recipient = fields["recipient"]
    if recipient["type"] == "x25519":
        if identity is None:
            raise ShareInvalid("it is addressed to a sharing identity")
        if recipient["publicKey"] != identity.agreement_key:
            raise ShareInvalid("it is addressed to someone else")
    elif passphrase is None:
        raise ShareInvalid("it is protected by a passphrase")
    try:
        Ed25519PublicKey.from_public_bytes(fields["sender"][32:]).verify(fields["signature"], fields["transcript"])
    except InvalidSignature:
        raise ShareInvalid("the signature does not match") from None
    aad = key_associated_data(fields["photoID"], fields["sender"][32:])
    sealed = fields["encryptedKey"] + fields["authTag"]
    if recipient["type"] == "x25519":
        content_key = hpke_open(identity.agreement_secret, fields["iv"], HPKE_INFO, aad, sealed)
    else:
        wrapping_key = argon2id(passphrase, recipient["salt"], recipient["operations"], recipient["memoryBytes"])
        try:
            content_key = ChaCha20Poly1305(wrapping_key).decrypt(fields["iv"], sealed, aad)
        except InvalidTag:
            raise ShareInvalid("wrong passphrase") from None
    try:
        metadata = parse_metadata(loca.decrypt(metadata_key(content_key), fields["metadata"]))
        contents = loca.decrypt(content_key, fields["encryptedData"])
    except loca.LOCAError as error:
        raise ShareInvalid(f"a payload does not decrypt: {type(error).__name__}") from None
    if metadata["originalSize"] != len(contents):
        raise ShareInvalid("the photo's size differs from its metadata")
    return contents, metadata, fields["photoID"], fields["sender"]


# ---------------------------------------------------------------------------
# Known-answer cases

def pattern(length, start=0):
    return bytes((start + i) % 251 for i in range(length))


ALICE_SEED = bytes(range(0x00, 0x20))
BOB_SEED = bytes(range(0x20, 0x40))


def bundle_cases():
    """Fixed inputs. Never use fixed randomness for a real bundle."""
    return [
        {
            "name": "to an identity (HPKE)",
            "photoID": "5F0C2A9E-1B7D-4E8A-9C3F-0D6B2E4A7C11",
            "contentsPrefix": b"\xff\xd8\xff\xe0",
            "patternLength": 600,
            "metadata": {"originalFilename": "Été à Lyon — IMG_0042.jpg", "format": "jpeg", "originalSize": 604,
                         "captureDate": 1700000000, "width": 4032, "height": 3024},
            "recipient": {"type": "x25519"},
            "randomness": {"contentKey": bytes(range(0x40, 0x60)), "photoNonce": bytes(range(0xA0, 0xAC)),
                           "metadataNonce": bytes(range(0xB0, 0xBC)), "timestamp": 1700000100,
                           "ephemeralSecret": bytes(range(0x60, 0x80)),
                           "salt": bytes(range(0xC0, 0xD0)), "keyNonce": bytes(range(0xD0, 0xDC))},
        },
        {
            "name": "to a passphrase (Argon2id)",
            "photoID": "p-2",
            "contentsPrefix": b"",
            "patternLength": 300,
            "metadata": {"originalFilename": "scan.png", "format": "png", "originalSize": 300,
                         "captureDate": None, "width": None, "height": None},
            "recipient": {"type": "passphrase", "passphrase": "Grüße aus Lyon, 2024!", "operations": 2,
                          "memoryBytes": 65536},
            "randomness": {"contentKey": bytes(range(0x80, 0xA0)), "photoNonce": bytes(range(0xE0, 0xEC)),
                           "metadataNonce": bytes(range(0xF0, 0xFC)), "timestamp": 1700000200,
                           "ephemeralSecret": bytes(range(0x60, 0x80)),
                           "salt": bytes(range(0xC0, 0xD0)), "keyNonce": bytes(range(0xD0, 0xDC))},
        },
    ]


def build_case(case):
    alice, bob = Identity(ALICE_SEED), Identity(BOB_SEED)
    contents = case["contentsPrefix"] + pattern(case["patternLength"])
    recipient = dict(case["recipient"])
    if recipient["type"] == "x25519":
        recipient["publicKey"] = bob.agreement_key
    bundle = create_bundle(contents, case["metadata"], case["photoID"], alice, recipient, case["randomness"])
    return contents, bundle


# ---------------------------------------------------------------------------
# Swift output

def swift_text(text, indent, width=100):
    """A Swift expression for `text` (ASCII JSON): an array of raw string pieces, joined."""
    parts = [text[i:i + width] for i in range(0, len(text), width)]
    pad = " " * (indent + 4)
    body = ",\n".join(f'{pad}#"{part}"#' for part in parts)
    return "[\n" + body + "\n" + " " * indent + "].joined()"


def swift_literal(text):
    return json.dumps(text, ensure_ascii=False)


def swift_vectors():
    out = []
    w = out.append
    alice, bob = Identity(ALICE_SEED), Identity(BOB_SEED)
    w("// Generated by scripts/share_reference.py --swift-vectors; do not edit by hand.")
    w("// Regenerate: python3 scripts/share_reference.py --swift-vectors > Tests/VaultCryptoTests/ShareBundleVectors.swift")
    w("")
    w("/// `.locaphoto` share bundle known-answer vectors, produced by scripts/share_reference.py (an independent")
    w("/// implementation with Python `cryptography`/OpenSSL, written from Docs/Share-bundles.md).")
    w("///")
    w("/// Byte strings are lowercase hex without spaces; decode with `hexBytes(_:)`. Bundles are given whole,")
    w("/// as the exact JSON text a bundle file holds (UTF-8; every vector here is ASCII).")
    w("enum ShareBundleVectors {")
    w("    /// A sharing identity derived from a seed.")
    w("    struct IdentityCase: Sendable {")
    w("        let name: String")
    w("        let seed: String")
    w("        /// HKDF(seed, info: \"memora sharing x25519\"): the X25519 secret key.")
    w("        let agreementSecret: String")
    w("        /// HKDF(seed, info: \"memora sharing ed25519\"): the Ed25519 seed (RFC 8032 secret key).")
    w("        let signingSeed: String")
    w("        let agreementKey: String")
    w("        let signingKey: String")
    w("        let text: String")
    w("        let fingerprint: String")
    w("    }")
    w("")
    w("    static let identities: [IdentityCase] = [")
    for name, seed, ident in (("alice", ALICE_SEED, alice), ("bob", BOB_SEED, bob)):
        w("        IdentityCase(")
        w(f"            name: \"{name}\",")
        w(f"            seed: \"{seed.hex()}\",")
        w(f"            agreementSecret: \"{ident.agreement_secret.hex()}\",")
        w(f"            signingSeed: \"{ident.signing_seed.hex()}\",")
        w(f"            agreementKey: \"{ident.agreement_key.hex()}\",")
        w(f"            signingKey: \"{ident.signing_key.hex()}\",")
        w(f"            text: \"{identity_text(ident.public)}\",")
        w(f"            fingerprint: \"{fingerprint(ident.public)}\"")
        w("        ),")
    w("    ]")
    w("")
    w("    /// One bundle from `alice` to `bob` (identity case) or to a passphrase, made with fixed randomness.")
    w("    /// The photo is `hexBytes(contentsPrefix)` followed by `patternLength` bytes where byte i is `UInt8(i % 251)`.")
    w("    /// `captureDate` is Unix seconds (nil: absent); `width`/`height` nil: absent.")
    w("    /// `transcriptDigest` is HMAC-SHA256(key: 32 zero bytes, signed transcript), i.e. HKDF-Extract(salt: empty).")
    w("    struct BundleCase: Sendable {")
    w("        let name: String")
    w("        let photoID: String")
    w("        let contentsPrefix: String")
    w("        let patternLength: Int")
    w("        let originalFilename: String")
    w("        let format: String")
    w("        let captureDate: Int?")
    w("        let width: Int?")
    w("        let height: Int?")
    w("        /// nil for a bundle addressed to `bob`.")
    w("        let passphrase: String?")
    w("        let operations: UInt32")
    w("        let memoryBytes: UInt32")
    w("        let contentKey: String")
    w("        let photoNonce: String")
    w("        let metadataNonce: String")
    w("        let timestamp: UInt64")
    w("        let ephemeralSecret: String")
    w("        let salt: String")
    w("        let keyNonce: String")
    w("        /// HKDF(content key, info: \"LOCA v1 share metadata key\").")
    w("        let metadataKey: String")
    w("        /// The metadata JSON before encryption.")
    w("        let metadataJSON: String")
    w("        /// The associated data of the sealed content key.")
    w("        let keyAssociatedData: String")
    w("        let transcriptDigest: String")
    w("        let bundle: String")
    w("    }")
    w("")
    w("    static let bundles: [BundleCase] = [")
    for case in bundle_cases():
        contents, bundle = build_case(case)
        fields = parse_bundle(bundle)
        meta, rand, rec = case["metadata"], case["randomness"], case["recipient"]

        def optional(value):
            return "nil" if value is None else str(value)
        w("        BundleCase(")
        w(f"            name: {swift_literal(case['name'])},")
        w(f"            photoID: {swift_literal(case['photoID'])},")
        w(f"            contentsPrefix: \"{case['contentsPrefix'].hex()}\",")
        w(f"            patternLength: {case['patternLength']},")
        w(f"            originalFilename: {swift_literal(meta['originalFilename'])},")
        w(f"            format: {swift_literal(meta['format'])},")
        w(f"            captureDate: {optional(meta['captureDate'])},")
        w(f"            width: {optional(meta['width'])},")
        w(f"            height: {optional(meta['height'])},")
        w(f"            passphrase: {swift_literal(rec['passphrase']) if rec['type'] == 'passphrase' else 'nil'},")
        w(f"            operations: {rec.get('operations', 0)},")
        w(f"            memoryBytes: {rec.get('memoryBytes', 0)},")
        for key in ("contentKey", "photoNonce", "metadataNonce"):
            w(f"            {key}: \"{rand[key].hex()}\",")
        w(f"            timestamp: {rand['timestamp']},")
        for key in ("ephemeralSecret", "salt", "keyNonce"):
            w(f"            {key}: \"{rand[key].hex()}\",")
        w(f"            metadataKey: \"{metadata_key(rand['contentKey']).hex()}\",")
        w(f"            metadataJSON: #\"{metadata_json(meta).decode('utf-8')}\"#,")
        w(f"            keyAssociatedData: \"{key_associated_data(case['photoID'], alice.signing_key).hex()}\",")
        w(f"            transcriptDigest: \"{loca.zero_key_hmac(fields['transcript']).hex()}\",")
        text = bundle.decode("utf-8")
        assert text.isascii() and '"#' not in text
        w(f"            bundle: {swift_text(text, 12)}")
        w("        ),")
    w("    ]")
    w("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Self-test

RFC9180_A21 = {  # RFC 9180 A.2.1, first encryption
    "skEm": "f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600",
    "skRm": "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb",
    "pkRm": "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a",
    "enc": "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
    "info": "4f6465206f6e2061204772656369616e2055726e",
    "aad": "436f756e742d30",
    "pt": "4265617574792069732074727574682c20747275746820626561757479",
    "ct": "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28",
}


def expect_refused(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except ShareInvalid:
        return
    raise AssertionError("a bad bundle was accepted")


def reencoded(bundle, edit):
    """The bundle's JSON after `edit(wire)` changed it (used to flip bytes inside decoded fields)."""
    wire = json.loads(bundle)
    edit(wire)
    return canonical_json(wire)


def decoded_field_paths(wire):
    paths = [("photo", "encryptedData"), ("photo", "encryptedKey"), ("photo", "iv"), ("photo", "authTag"),
             ("metadata",), ("signature",)]
    paths += [("recipient", "publicKey")] if wire["recipient"]["type"] == "x25519" else [("recipient", "salt")]
    return paths


def self_test():
    checks = 0
    v = {k: bytes.fromhex(x) for k, x in RFC9180_A21.items()}
    enc, ct = hpke_seal(v["pkRm"], v["info"], v["aad"], v["pt"], v["skEm"])
    assert enc == v["enc"] and ct == v["ct"], "HPKE differs from RFC 9180 A.2.1"
    assert hpke_open(v["skRm"], v["enc"], v["info"], v["aad"], v["ct"]) == v["pt"]
    checks += 2
    print("ok  HPKE matches RFC 9180 A.2.1 (seal and open)")

    # Argon2id against RFC 9106 is not possible (libsodium has no secret/ad); check libsodium's
    # memory unit instead: 65536 bytes are 64 KiB.
    assert argon2id("x", bytes(16), 1, 65536) == Argon2id(salt=bytes(16), length=32, iterations=1, lanes=1,
                                                          memory_cost=64).derive(b"x")
    checks += 1

    alice, bob = Identity(ALICE_SEED), Identity(BOB_SEED)
    text = identity_text(alice.public)
    assert len(text) == len(TEXT_PREFIX) + 86 and parse_identity_text(" " + text + "\n") == alice.public
    assert parse_identity_text(text + "==") == alice.public
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    loose = text[:-1] + alphabet[alphabet.index(text[-1]) | 1]  # the same 64 bytes with an unused bit set
    assert base64.urlsafe_b64decode(loose[len(TEXT_PREFIX):] + "==") == alice.public
    assert parse_identity_text(loose) is None
    assert parse_metadata(b'{"captureDate":"2023-11-14T22:13:20.5Z","format":"a","originalFilename":"b",'
                          b'"originalSize":1}')["captureDate"] == 1700000000
    expect_refused(parse_metadata, b'{"captureDate":"2023-11-14 22:13:20","format":"a","originalFilename":"b",'
                   b'"originalSize":1}')
    assert parse_identity_text(text[:-1]) is None and parse_identity_text("memora-share2:" + text[14:]) is None
    assert len(fingerprint(alice.public)) == 39
    checks += 8

    for case in bundle_cases():
        contents, bundle = build_case(case)
        rec = case["recipient"]
        key_args = {"identity": bob} if rec["type"] == "x25519" else {"passphrase": rec["passphrase"]}
        opened, metadata, photo_id, sender = open_bundle(bundle, expected_sender=alice.public, **key_args)
        assert opened == contents and photo_id == case["photoID"] and sender == alice.public
        assert metadata == case["metadata"], metadata
        assert build_case(case)[1] == bundle  # deterministic with fixed randomness
        checks += 3
        # Re-formatted JSON (spaces, other key order) is the same bundle: the signature covers values.
        pretty = json.dumps(json.loads(bundle), indent=2).encode()
        assert open_bundle(pretty, **key_args)[0] == contents
        checks += 1
        # Refusals before any decryption.
        expect_refused(open_bundle, bundle, maximum_size=len(bundle) - 1, **key_args)
        expect_refused(open_bundle, bundle, expected_sender=bob.public, **key_args)
        if rec["type"] == "x25519":
            expect_refused(open_bundle, bundle, identity=alice)
            expect_refused(open_bundle, bundle, passphrase="x")
        else:
            expect_refused(open_bundle, bundle, passphrase=rec["passphrase"] + " ")
            expect_refused(open_bundle, bundle, identity=bob)
            expect_refused(open_bundle, reencoded(bundle, lambda w: w["recipient"].update(operations=65)), **key_args)
            expect_refused(open_bundle, reencoded(bundle, lambda w: w["recipient"].update(memoryBytes=4096)), **key_args)
        expect_refused(open_bundle, reencoded(bundle, lambda w: w.update(version="1.1")), **key_args)
        expect_refused(open_bundle, reencoded(bundle, lambda w: w["photo"].update(id="")), **key_args)
        expect_refused(open_bundle, reencoded(bundle, lambda w: w["photo"].update(id="x" * 129)), **key_args)
        expect_refused(open_bundle, reencoded(bundle, lambda w: w.update(sender=identity_text(bob.public))), **key_args)
        checks += 9
        # Every byte of the file, flipped (XOR 0x01), is refused.
        for index in range(len(bundle)):
            damaged = bytearray(bundle)
            damaged[index] ^= 0x01
            expect_refused(open_bundle, bytes(damaged), **key_args)
            checks += 1
        # Every byte of every decoded field, flipped, is refused (the JSON stays valid).
        wire = json.loads(bundle)
        for path in decoded_field_paths(wire):
            holder = wire
            for key in path[:-1]:
                holder = holder[key]
            raw = base64.b64decode(holder[path[-1]])
            for index in range(len(raw)):
                damaged = bytearray(raw)
                damaged[index] ^= 0x80

                def edit(w, path=path, value=b64(bytes(damaged))):
                    target = w
                    for key in path[:-1]:
                        target = target[key]
                    target[path[-1]] = value
                expect_refused(open_bundle, reencoded(bundle, edit), **key_args)
                checks += 1
        print(f"ok  bundle {case['name']}: opened, deterministic, every byte flip and every field flip refused")

    print(f"self-test passed: {checks} checks")


def main():
    loca.run_command_line(__doc__.split("\n")[0], "Tests/VaultCryptoTests/ShareBundleVectors.swift", swift_vectors, self_test)


if __name__ == "__main__":
    main()
