// The C++ side of the CExiv2 bridge. See include/CExiv2.h for the rules.

// libexiv2 0.27 declares its smart pointers as std::auto_ptr, which C++17
// deprecates; the deprecation is libexiv2's, not ours, so it is silenced here
// and only here.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <exiv2/exiv2.hpp>

#include "CExiv2.h"

#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

struct cexiv2_tag {
    cexiv2_family family;
    std::string key;
    std::string type;
    std::string value;
};

struct cexiv2_tag_list {
    std::string mimeType;
    std::vector<cexiv2_tag> tags;
};

namespace {

/// libexiv2's XMP toolkit must be initialised once before any concurrent use,
/// and its log handler would otherwise print warnings to stderr.
void initialiseOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
        Exiv2::XmpParser::initialize();
    });
}

void clearError(cexiv2_error *error) {
    if (error == nullptr) return;
    error->status = CEXIV2_OK;
    error->exiv2_code = 0;
    error->message[0] = '\0';
}

void setError(cexiv2_error *error, cexiv2_status status, int code, const char *message) {
    if (error == nullptr) return;
    error->status = status;
    error->exiv2_code = code;
    std::strncpy(error->message, message != nullptr ? message : "", sizeof(error->message) - 1);
    error->message[sizeof(error->message) - 1] = '\0';
}

/// Runs `body`, turning any C++ exception into a `cexiv2_error`.
template <typename Result, typename Body>
Result guarded(cexiv2_error *error, Result failure, Body body) {
    clearError(error);
    try {
        initialiseOnce();
        return body();
    } catch (const Exiv2::AnyError &exiv2Error) {
        setError(error, CEXIV2_ERROR_EXIV2, exiv2Error.code(), exiv2Error.what());
    } catch (const std::exception &other) {
        setError(error, CEXIV2_ERROR_UNEXPECTED, 0, other.what());
    } catch (...) {
        setError(error, CEXIV2_ERROR_UNEXPECTED, 0, "unknown C++ exception in libexiv2");
    }
    return failure;
}

cexiv2_tag_list *collectTags(Exiv2::Image &image) {
    image.readMetadata();
    auto *list = new cexiv2_tag_list();
    list->mimeType = image.mimeType();
    for (const auto &datum : image.exifData()) {
        list->tags.push_back({CEXIV2_FAMILY_EXIF, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString()});
    }
    for (const auto &datum : image.iptcData()) {
        list->tags.push_back({CEXIV2_FAMILY_IPTC, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString()});
    }
    for (const auto &datum : image.xmpData()) {
        list->tags.push_back({CEXIV2_FAMILY_XMP, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString()});
    }
    return list;
}

/// The tag at `index`, or an empty tag when the index is out of range (an
/// accessor must never throw across the C boundary).
const cexiv2_tag &tagAt(const cexiv2_tag_list *list, size_t index) {
    static const cexiv2_tag empty{CEXIV2_FAMILY_EXIF, "", "", ""};
    if (list == nullptr || index >= list->tags.size()) return empty;
    return list->tags[index];
}

} // namespace

extern "C" {

const char *cexiv2_version(void) {
    return Exiv2::version();
}

cexiv2_tag_list *cexiv2_read_file(const char *path, cexiv2_error *error) {
    if (path == nullptr) {
        setError(error, CEXIV2_ERROR_ARGUMENT, 0, "no path given");
        return nullptr;
    }
    return guarded<cexiv2_tag_list *>(error, nullptr, [&] {
        auto image = Exiv2::ImageFactory::open(std::string(path), false);
        return collectTags(*image);
    });
}

cexiv2_tag_list *cexiv2_read_memory(const uint8_t *bytes, size_t length, cexiv2_error *error) {
    if (bytes == nullptr || length == 0) {
        setError(error, CEXIV2_ERROR_ARGUMENT, 0, "the image is empty");
        return nullptr;
    }
    return guarded<cexiv2_tag_list *>(error, nullptr, [&] {
        auto image = Exiv2::ImageFactory::open(bytes, static_cast<long>(length));
        return collectTags(*image);
    });
}

size_t cexiv2_tag_count(const cexiv2_tag_list *list) {
    return list != nullptr ? list->tags.size() : 0;
}

cexiv2_family cexiv2_tag_family(const cexiv2_tag_list *list, size_t index) {
    return tagAt(list, index).family;
}

const char *cexiv2_tag_key(const cexiv2_tag_list *list, size_t index) {
    return tagAt(list, index).key.c_str();
}

const char *cexiv2_tag_type(const cexiv2_tag_list *list, size_t index) {
    return tagAt(list, index).type.c_str();
}

const char *cexiv2_tag_value(const cexiv2_tag_list *list, size_t index) {
    return tagAt(list, index).value.c_str();
}

const char *cexiv2_tag_list_mime_type(const cexiv2_tag_list *list) {
    return list != nullptr ? list->mimeType.c_str() : "";
}

void cexiv2_tag_list_free(cexiv2_tag_list *list) {
    delete list;
}

} // extern "C"

#pragma clang diagnostic pop
