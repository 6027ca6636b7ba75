/// XMP put into photos the package makes itself (the demo's sample library, fixtures). Photos of
/// users are written by ``CaptionWriter``, which edits surgically, verifies and keeps a history.
package enum SampleXMP {
    /// `jpeg` with `packet` as its XMP (replacing the XMP segment it has, or added where XMP goes).
    package static func embedding(_ packet: String, inJPEG jpeg: [UInt8], source: String) throws(MetadataError) -> [UInt8] {
        let payload = JPEGFile.xmpSignature + Array(packet.utf8)
        guard payload.count <= JPEGFile.maximumPayload else {
            throw .tooLarge(source: source, reason: "an XMP packet of \(packet.utf8.count) bytes does not fit in one JPEG segment")
        }
        var file = try JPEGFile(jpeg, source: source)
        file.setSegment(marker: 0xE1, signature: JPEGFile.xmpSignature, payload: payload)
        return file.bytes
    }
}
