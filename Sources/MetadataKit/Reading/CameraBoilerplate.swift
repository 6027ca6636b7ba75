import Foundation

/// Text that cameras and software put in `ImageDescription` (and sometimes other
/// caption fields) which describes nothing. Treating it as a caption would make the
/// captioning pipeline skip the photo as "already described by a person".
///
/// The list is documented in Docs/Metadata.md and tested; matching ignores case and
/// surrounding white space.
package enum CameraBoilerplate {
    /// Exact values seen from cameras, phones and imaging software.
    package static let knownValues: Set<String> = [
        "olympus digital camera", "sanyo digital camera", "konica minolta digital camera", "minolta digital camera",
        "digital camera", "kodak digital still camera", "samsung digital camera", "casio digital camera",
        "dcf 1.0", "exif jpeg", "exif_jpeg", "jpeg", "sony dsc", "default", "image", "untitled", "unknown", "<unknown>",
        "camera", "picture", "photo", "no description", "none", "lead technologies inc. v1.01", "created with gimp",
        "hewlett-packard", "hp photosmart", "easyshare", "samsung", "huawei", "xiaomi", "oppo", "vivo", "realme",
        "cameraid", "sdc", "sony", "nikon", "canon", "fujifilm", "panasonic", "pentax", "ricoh",
    ]

    /// Whether `text` is camera boilerplate rather than a description.
    package static func isBoilerplate(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{0}")))
        if trimmed.isEmpty { return true }
        let lowered = trimmed.lowercased()
        if knownValues.contains(lowered) { return true }
        // "<MAKE> DIGITAL CAMERA", "<MAKE> DSC"
        if lowered.hasSuffix(" digital camera") || lowered.hasSuffix(" digital still camera") { return true }
        // A DCIM folder or file path: "DCIM/100OLYMP", "\DCIM\101MSDCF\DSC01234.JPG"
        if lowered.contains("dcim/") || lowered.contains("dcim\\") || lowered.hasPrefix("/dcim") { return true }
        // A bare camera file name: "DSC_0042", "IMG_1234.JPG", "P1010001", "DSCF1234.jpg"
        if trimmed.range(of: #"^[A-Za-z_]{1,5}[_-]?\d{3,8}(\.(jpe?g|heic|png|tiff?|dng|raw|arw|nef|cr2))?$"#, options: [.regularExpression, .caseInsensitive]) != nil {
            return true
        }
        // Only punctuation or control characters.
        if trimmed.unicodeScalars.allSatisfy({ !CharacterSet.alphanumerics.contains($0) }) { return true }
        return false
    }
}
