package import MetadataKit
internal import Foundation
internal import MemoraSync

extension MemoryUpload {
    /// The description a photo carries for a screen reader: its alt text, else its caption (camera
    /// boilerplate such as "OLYMPUS DIGITAL CAMERA" is not one), when it passes the checks an uploaded
    /// description passes; nil when it has none. The hub describes a memory by it when the upload gives
    /// no description, and the collector describes on the device only a photo without one.
    package static func ownDescription(_ captions: CaptionReading) -> String? {
        checkedText(captions.altText ?? captions.caption, maxLength: MemoryDetails.descriptionLimit(for: .photo))
    }

    /// The extended description a photo carries (`Iptc4xmpCore:ExtDescrAccessibility`), checked as an
    /// uploaded one is; nil when it has none.
    package static func ownExtendedDescription(_ captions: CaptionReading) -> String? {
        checkedText(captions.extendedDescription, maxLength: MemoryDetails.extendedDescriptionLimit)
    }

    /// `text` trimmed, when it is not empty and passes the checks of an uploaded text (its length, no
    /// control characters): a photo's own text is trusted no more than a request's, and a describer's
    /// text never makes the hub refuse the photo it describes.
    package static func checkedText(_ text: String?, maxLength: Int) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
              SyncValueCheck.textProblem(text, maxLength: maxLength) == nil else { return nil }
        return text
    }
}
