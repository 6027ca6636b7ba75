import Foundation

extension CaptionWriter {
    /// The XMP sidecar of the photo at `path`: an existing `photo.heic.xmp`, else an existing
    /// `photo.xmp` (Lightroom's naming), else the new `photo.heic.xmp`.
    public static func sidecarPath(for path: String) -> String {
        let beside = path + ".xmp"
        let lightroom = (path as NSString).deletingPathExtension + ".xmp"
        if FileAccess.exists(beside) { return beside }
        if lightroom != path, FileAccess.exists(lightroom) { return lightroom }
        return beside
    }

    /// Writes the caption (and alt text) into the photo's XMP sidecar instead of the photo,
    /// for formats Memora cannot write in place (HEIC, AVIF) or when the photo must stay
    /// byte for byte as it is. An existing sidecar keeps everything else it holds (its other
    /// languages too); a new one holds just these properties. The packet is verified by
    /// reading it back before it replaces the sidecar atomically. Returns the sidecar's path.
    @discardableResult
    public static func writeSidecar(_ update: CaptionUpdate, for path: String) throws(MetadataError) -> String {
        guard FileAccess.exists(path) else { throw .io(path: path, reason: "no such file", code: .notFound) }
        let sidecar = sidecarPath(for: path)
        let existing: (bytes: [UInt8], identity: FileAccess.Identity)? = FileAccess.exists(sidecar)
            ? try FileAccess.readWithIdentity(sidecar) : nil
        let edits = MetadataOperation.caption(update).xmpEdits(hasPacket: true) ?? []
        let packet = try XMPPacketCheck.apply(existing?.bytes ?? [], edits: edits, source: sidecar)
        let reading = try MetadataReader.read(packet, source: sidecar).captions
        var differences: [String] = []
        if reading.xmp?.trimmingCharacters(in: .whitespacesAndNewlines) != update.caption.trimmingCharacters(in: .whitespacesAndNewlines) {
            differences.append("\(descriptionKey) (not written)")
        }
        if let altText = update.altText, reading.altText != altText { differences.append("\(altTextKey) (not written)") }
        if let extended = update.extendedDescription, reading.extendedDescription != extended { differences.append("\(extendedDescriptionKey) (not written)") }
        guard differences.isEmpty else { throw .verificationFailed(source: sidecar, differences: differences) }
        if let existing {
            try FileAccess.replace(sidecar, with: packet, expected: existing.bytes, identity: existing.identity, keepModificationTime: false)
        } else {
            try FileAccess.create(sidecar, with: packet)
        }
        return sidecar
    }
}
