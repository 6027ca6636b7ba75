/// One container format's editor: applies an operation (a caption, a location strip) to the
/// file's bytes in memory and returns the result with the snapshot of what it replaced.
/// ``CaptionWriter`` detects the container once, picks the editor, verifies the result the same
/// way for every format and replaces the file.
protocol MetadataEditor {
    /// `original` with `operation` applied, and the snapshot of what it replaced. `oldCaptions`
    /// are the file's current captions (an EXIF description equal to one of them is a caption).
    static func apply(_ operation: MetadataOperation, to original: [UInt8], source: String,
                      oldCaptions: Set<String>) throws(MetadataError) -> ([UInt8], MetadataSnapshot)
}

extension JPEGCaptionEditor: MetadataEditor {}
extension PNGCaptionEditor: MetadataEditor {}
extension TIFFCaptionEditor: MetadataEditor {}
extension WebPCaptionEditor: MetadataEditor {}
extension HEIFCaptionEditor: MetadataEditor {}
