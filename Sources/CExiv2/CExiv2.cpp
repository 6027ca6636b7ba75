// The C++ side of the CExiv2 bridge. See include/CExiv2.h for the rules.

// libexiv2 0.27 declares its smart pointers as std::auto_ptr, which C++17
// deprecates; the deprecation is libexiv2's, not ours, so it is silenced here
// and only here.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <exiv2/exiv2.hpp>

#include "CExiv2.h"

#include <cstdlib>
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
    std::string bytes;
    std::string language;
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
        // HEIC, HEIF and AVIF are ISO-BMFF; libexiv2 0.27 reads them only when asked to.
        Exiv2::enableBMFF(true);
    });
}

/// The XMP toolkit keeps global state (namespaces); every XMP call runs under this lock.
std::mutex &xmpMutex() {
    static std::mutex mutex;
    return mutex;
}

/// Forgets every namespace a previous packet registered. The XMP toolkit's registry is
/// global: without this, one malformed file (say `xmlns:dc` bound to a corrupted URI)
/// would change how every later packet in the process is read and written.
/// Call with `xmpMutex()` held.
/// Memora's own namespace (its basic-description mark) is registered again each time, so that
/// libexiv2 lists it as Xmp.memora.* and the toolkit can write it into a new packet.
void resetNamespaces() {
    Exiv2::XmpProperties::unregisterNs();
    Exiv2::XmpProperties::registerNs("http://ns.memora.photos/xmp/1.0/", "memora");
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

std::string rawBytes(const Exiv2::Value &value) {
    std::string bytes(static_cast<size_t>(value.size()), '\0');
    if (!bytes.empty()) value.copy(reinterpret_cast<Exiv2::byte *>(&bytes[0]), Exiv2::littleEndian);
    return bytes;
}

/// Appends the XMP properties, one entry per language item and per array item.
void appendXmp(cexiv2_tag_list *list, const Exiv2::XmpData &xmpData) {
    for (const auto &datum : xmpData) {
        const char *typeName = datum.typeName() ? datum.typeName() : "";
        const Exiv2::Value &value = datum.value();
        if (value.typeId() == Exiv2::langAlt) {
            const auto &alternatives = dynamic_cast<const Exiv2::LangAltValue &>(value).value_;
            for (const auto &item : alternatives) {
                list->tags.push_back({CEXIV2_FAMILY_XMP, datum.key(), typeName, item.second, item.second, item.first});
            }
        } else if (value.typeId() == Exiv2::xmpBag || value.typeId() == Exiv2::xmpSeq || value.typeId() == Exiv2::xmpAlt) {
            for (long index = 0; index < value.count(); ++index) {
                std::string item = value.toString(index);
                list->tags.push_back({CEXIV2_FAMILY_XMP, datum.key(), typeName, item, item, ""});
            }
        } else {
            std::string text = datum.toString();
            list->tags.push_back({CEXIV2_FAMILY_XMP, datum.key(), typeName, text, text, ""});
        }
    }
}

cexiv2_tag_list *collectTags(Exiv2::Image &image) {
    std::lock_guard<std::mutex> guard(xmpMutex());
    resetNamespaces();
    image.readMetadata();
    auto *list = new cexiv2_tag_list();
    list->mimeType = image.mimeType();
    for (const auto &datum : image.exifData()) {
        list->tags.push_back({CEXIV2_FAMILY_EXIF, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString(), rawBytes(datum.value()), ""});
    }
    for (const auto &datum : image.iptcData()) {
        list->tags.push_back({CEXIV2_FAMILY_IPTC, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString(), rawBytes(datum.value()), ""});
    }
    appendXmp(list, image.xmpData());
    return list;
}

/// The tag at `index`, or an empty tag when the index is out of range (an
/// accessor must never throw across the C boundary).
const cexiv2_tag &tagAt(const cexiv2_tag_list *list, size_t index) {
    static const cexiv2_tag empty{CEXIV2_FAMILY_EXIF, "", "", "", "", ""};
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

cexiv2_tag_list *cexiv2_read_blocks(const uint8_t *tiff, size_t tiff_length, const char *xmp, size_t xmp_length,
                                    const char *mime_type, cexiv2_error *error) {
    if (tiff_length > 0x7FFFFFFF) {
        setError(error, CEXIV2_ERROR_ARGUMENT, 0, "the EXIF block is too large");
        return nullptr;
    }
    return guarded<cexiv2_tag_list *>(error, nullptr, [&]() -> cexiv2_tag_list * {
        std::lock_guard<std::mutex> guard(xmpMutex());
        resetNamespaces();
        auto *list = new cexiv2_tag_list();
        list->mimeType = mime_type != nullptr ? mime_type : "";
        if (tiff != nullptr && tiff_length > 0) {
            Exiv2::ExifData exifData;
            Exiv2::ExifParser::decode(exifData, tiff, static_cast<uint32_t>(tiff_length));
            for (const auto &datum : exifData) {
                list->tags.push_back({CEXIV2_FAMILY_EXIF, datum.key(), datum.typeName() ? datum.typeName() : "", datum.toString(), rawBytes(datum.value()), ""});
            }
        }
        if (xmp != nullptr && xmp_length > 0) {
            Exiv2::XmpData xmpData;
            if (Exiv2::XmpParser::decode(xmpData, std::string(xmp, xmp_length)) != 0) {
                delete list;
                setError(error, CEXIV2_ERROR_EXIV2, 0, "the XMP packet is not valid XMP (the toolkit rejected it)");
                return nullptr;
            }
            appendXmp(list, xmpData);
        }
        return list;
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

const uint8_t *cexiv2_tag_bytes(const cexiv2_tag_list *list, size_t index, size_t *length) {
    const cexiv2_tag &tag = tagAt(list, index);
    if (length != nullptr) *length = tag.bytes.size();
    return reinterpret_cast<const uint8_t *>(tag.bytes.data());
}

const char *cexiv2_tag_language(const cexiv2_tag_list *list, size_t index) {
    return tagAt(list, index).language.c_str();
}

cexiv2_tag_list *cexiv2_xmp_read(const char *packet, size_t length, cexiv2_error *error) {
    return guarded<cexiv2_tag_list *>(error, nullptr, [&]() -> cexiv2_tag_list * {
        std::lock_guard<std::mutex> guard(xmpMutex());
        resetNamespaces();
        Exiv2::XmpData xmpData;
        if (packet != nullptr && length > 0) {
            if (Exiv2::XmpParser::decode(xmpData, std::string(packet, length)) != 0) {
                setError(error, CEXIV2_ERROR_EXIV2, 0, "the XMP packet is not valid XMP (the toolkit rejected it)");
                return nullptr;
            }
        }
        auto *list = new cexiv2_tag_list();
        list->mimeType = "application/rdf+xml";
        appendXmp(list, xmpData);
        return list;
    });
}

char *cexiv2_xmp_apply(const char *packet, size_t length, const cexiv2_xmp_edit *edits, size_t count, cexiv2_error *error) {
    return guarded<char *>(error, nullptr, [&]() -> char * {
        std::lock_guard<std::mutex> guard(xmpMutex());
        resetNamespaces();
        Exiv2::XmpData xmpData;
        if (packet != nullptr && length > 0) {
            if (Exiv2::XmpParser::decode(xmpData, std::string(packet, length)) != 0) {
                setError(error, CEXIV2_ERROR_EXIV2, 0, "the XMP packet is not valid XMP (the toolkit rejected it); it was left as it is");
                return nullptr;
            }
        }
        for (size_t index = 0; index < count; ++index) {
            const cexiv2_xmp_edit &edit = edits[index];
            if (edit.key == nullptr) continue;
            const std::string key(edit.key);
            const std::string language(edit.language != nullptr && edit.language[0] != '\0' ? edit.language : "x-default");
            switch (edit.operation) {
            case CEXIV2_XMP_SET_LANGUAGE_ITEM:
            case CEXIV2_XMP_REMOVE_LANGUAGE_ITEM: {
                Exiv2::LangAltValue alternatives;
                auto existing = xmpData.findKey(Exiv2::XmpKey(key));
                if (existing != xmpData.end()) {
                    if (existing->value().typeId() == Exiv2::langAlt) {
                        alternatives.value_ = dynamic_cast<const Exiv2::LangAltValue &>(existing->value()).value_;
                    } else if (existing->count() > 0) {
                        alternatives.value_["x-default"] = existing->toString();
                    }
                    xmpData.erase(existing);
                }
                if (edit.operation == CEXIV2_XMP_SET_LANGUAGE_ITEM) {
                    alternatives.value_[language] = edit.value != nullptr ? edit.value : "";
                } else {
                    alternatives.value_.erase(language);
                }
                if (!alternatives.value_.empty()) xmpData.add(Exiv2::XmpKey(key), &alternatives);
                break;
            }
            case CEXIV2_XMP_SET_TEXT: {
                Exiv2::XmpTextValue text(edit.value != nullptr ? edit.value : "");
                auto existing = xmpData.findKey(Exiv2::XmpKey(key));
                if (existing != xmpData.end()) xmpData.erase(existing);
                xmpData.add(Exiv2::XmpKey(key), &text);
                break;
            }
            case CEXIV2_XMP_REMOVE: {
                const bool prefix = !key.empty() && key.back() == '*';
                const std::string stem = prefix ? key.substr(0, key.size() - 1) : key;
                for (auto it = xmpData.begin(); it != xmpData.end();) {
                    const std::string current = it->key();
                    const bool matches = prefix ? current.compare(0, stem.size(), stem) == 0
                                                : (current == stem || current.compare(0, stem.size() + 1, stem + "/") == 0);
                    it = matches ? xmpData.erase(it) : it + 1;
                }
                break;
            }
            }
        }
        // XmpParser::encode drops language items whose value is empty ("remove lang specs with
        // no value"), so an empty dc:title would vanish. They carry a placeholder through the
        // encoder (a private-use marker no real packet holds) and are emptied again after.
        static const std::string emptyItem = "\xEE\x80\x80memora-empty-language-item\xEE\x80\x80";
        const bool canMark = packet == nullptr || std::string(packet, length).find(emptyItem) == std::string::npos;
        bool marked = false;
        for (auto &datum : xmpData) {
            if (!canMark || datum.typeId() != Exiv2::langAlt) continue;
            Exiv2::LangAltValue alternatives = dynamic_cast<const Exiv2::LangAltValue &>(datum.value());
            bool changed = false;
            for (auto &item : alternatives.value_) {
                if (item.second.empty()) {
                    item.second = emptyItem;
                    changed = true;
                }
            }
            if (changed) {
                datum.setValue(&alternatives);
                marked = true;
            }
        }
        std::string output;
        if (Exiv2::XmpParser::encode(output, xmpData, Exiv2::XmpParser::useCompactFormat, 0) != 0) {
            setError(error, CEXIV2_ERROR_EXIV2, 0, "the XMP toolkit could not serialise the packet");
            return nullptr;
        }
        for (size_t at = marked ? output.find(emptyItem) : std::string::npos; at != std::string::npos; at = output.find(emptyItem, at)) {
            output.erase(at, emptyItem.size());
        }
        // The toolkit serialises a packet without properties as nothing at all, which readers
        // report as invalid XMP (exiftool: "Invalid XMP"): a packet left empty (a location strip
        // that removed every property) is written as a valid packet with an empty RDF element.
        if (output.empty()) {
            output = "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
                     "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"XMP Core 4.4.0-Exiv2\">\n"
                     " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>\n"
                     "</x:xmpmeta>\n"
                     "<?xpacket end=\"w\"?>";
        }
        char *result = static_cast<char *>(std::malloc(output.size() + 1));
        if (result == nullptr) throw std::bad_alloc();
        std::memcpy(result, output.data(), output.size());
        result[output.size()] = '\0';
        return result;
    });
}

void cexiv2_free(void *pointer) {
    std::free(pointer);
}

const char *cexiv2_tag_list_mime_type(const cexiv2_tag_list *list) {
    return list != nullptr ? list->mimeType.c_str() : "";
}

void cexiv2_tag_list_free(cexiv2_tag_list *list) {
    delete list;
}

} // extern "C"

#pragma clang diagnostic pop
