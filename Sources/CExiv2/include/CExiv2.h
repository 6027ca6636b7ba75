/// CExiv2: a plain C API over libexiv2 (C++).
///
/// Rules of this bridge:
/// - every function is `extern "C"`, takes and returns plain C types, and is
///   prefixed `cexiv2_`;
/// - no C++ exception ever crosses into the caller: failures are reported
///   through a `cexiv2_error` (a code and a human-readable message);
/// - objects returned by the bridge are owned by the caller and released with
///   the matching `_free` function.
#ifndef CEXIV2_H
#define CEXIV2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What went wrong in a bridge call.
typedef enum {
    CEXIV2_OK = 0,
    /// libexiv2 raised an `Exiv2::Error`; `exiv2_code` holds its code.
    CEXIV2_ERROR_EXIV2 = 1,
    /// Another C++ exception (for example `std::bad_alloc`).
    CEXIV2_ERROR_UNEXPECTED = 2,
    /// A caller passed a null pointer or an empty buffer.
    CEXIV2_ERROR_ARGUMENT = 3,
} cexiv2_status;

/// The error out-parameter of every fallible call.
typedef struct {
    cexiv2_status status;
    /// libexiv2's own error code when `status == CEXIV2_ERROR_EXIV2`.
    int exiv2_code;
    /// A NUL-terminated message, truncated to fit.
    char message[512];
} cexiv2_error;

/// The metadata family a tag belongs to.
typedef enum {
    CEXIV2_FAMILY_EXIF = 0,
    CEXIV2_FAMILY_IPTC = 1,
    CEXIV2_FAMILY_XMP = 2,
} cexiv2_family;

/// An opaque list of the tags read from one image.
typedef struct cexiv2_tag_list cexiv2_tag_list;

/// The libexiv2 version, for example "0.27.6".
const char *cexiv2_version(void);

/// Reads every EXIF, IPTC and XMP tag of the image at `path`.
/// Returns NULL and fills `error` on failure.
cexiv2_tag_list *cexiv2_read_file(const char *path, cexiv2_error *error);

/// Reads every EXIF, IPTC and XMP tag of an image held in memory.
/// Returns NULL and fills `error` on failure.
cexiv2_tag_list *cexiv2_read_memory(const uint8_t *bytes, size_t length, cexiv2_error *error);

/// The number of tags in the list.
size_t cexiv2_tag_count(const cexiv2_tag_list *list);
/// The family of tag `index`.
cexiv2_family cexiv2_tag_family(const cexiv2_tag_list *list, size_t index);
/// The full key of tag `index`, for example "Exif.Image.ImageDescription".
const char *cexiv2_tag_key(const cexiv2_tag_list *list, size_t index);
/// The libexiv2 type name of tag `index`, for example "Ascii" or "LangAlt".
const char *cexiv2_tag_type(const cexiv2_tag_list *list, size_t index);
/// The value of tag `index` as libexiv2 renders it with `toString()`. For XMP
/// language alternatives and arrays there is one entry per item (see `_language`).
const char *cexiv2_tag_value(const cexiv2_tag_list *list, size_t index);
/// The raw bytes of tag `index` (for EXIF and IPTC the stored bytes, so the caller
/// can decode their character set; for XMP the UTF-8 text). Sets `*length`.
const uint8_t *cexiv2_tag_bytes(const cexiv2_tag_list *list, size_t index, size_t *length);
/// The language of an XMP language-alternative item ("x-default", "de", ...), else "".
const char *cexiv2_tag_language(const cexiv2_tag_list *list, size_t index);
/// The MIME type libexiv2 detected, for example "image/jpeg".
const char *cexiv2_tag_list_mime_type(const cexiv2_tag_list *list);
/// Releases a list returned by a `cexiv2_read_*` function. NULL is allowed.
void cexiv2_tag_list_free(cexiv2_tag_list *list);

/// Reads the metadata blocks of a container libexiv2 does not parse well itself (HEIF and
/// AVIF): an EXIF TIFF block (from its byte-order mark) and an XMP packet, either may be
/// NULL. The list reports `mime_type`. Returns NULL and fills `error` when a block is rejected.
cexiv2_tag_list *cexiv2_read_blocks(const uint8_t *tiff, size_t tiff_length, const char *xmp, size_t xmp_length,
                                    const char *mime_type, cexiv2_error *error);

/// Reads the properties of an XMP packet (UTF-8 or UTF-16, with or without its
/// wrapper), as `cexiv2_read_*` lists them. Returns NULL and fills `error` when
/// the XMP toolkit rejects the packet.
cexiv2_tag_list *cexiv2_xmp_read(const char *packet, size_t length, cexiv2_error *error);

/// What `cexiv2_xmp_apply` does with one property.
typedef enum {
    /// Sets the `language` item of a language alternative (creating it as LangAlt if needed),
    /// keeping the other languages.
    CEXIV2_XMP_SET_LANGUAGE_ITEM = 0,
    /// Removes the `language` item of a language alternative (the whole property if it was the last).
    CEXIV2_XMP_REMOVE_LANGUAGE_ITEM = 1,
    /// Sets a simple text property.
    CEXIV2_XMP_SET_TEXT = 2,
    /// Removes a property (and, for a key ending in '*', every property with that prefix).
    CEXIV2_XMP_REMOVE = 3,
} cexiv2_xmp_operation;

/// One edit of an XMP packet.
typedef struct {
    cexiv2_xmp_operation operation;
    const char *key;
    const char *language;
    const char *value;
} cexiv2_xmp_edit;

/// Applies `edits` to an XMP packet (empty for a new one) and returns the new packet,
/// UTF-8 with its wrapper, to be released with `cexiv2_free`. Returns NULL and fills
/// `error` when the packet cannot be parsed (it is never silently dropped). A packet
/// left without properties comes back as a valid packet with an empty `rdf:RDF`.
char *cexiv2_xmp_apply(const char *packet, size_t length, const cexiv2_xmp_edit *edits, size_t count, cexiv2_error *error);

/// Releases memory returned by the bridge.
void cexiv2_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
