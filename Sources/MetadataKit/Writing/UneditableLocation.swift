internal import MemoraSystem

/// Location fields found in a file after a strip, so a file that is not clean is reported, not
/// counted as clean: the check after the write that the blocks no editor parses (a Ricoh RMETA
/// block, which the strip removes whole) are gone.
enum UneditableLocation {
    /// The first bytes of a file read for its APP segments (they come before the image data).
    static let headLimit = 1 << 20

    /// The uneditable location fields of the file at `path`, named for a person; empty when there
    /// are none or the file cannot be read.
    static func fields(inFileAt path: String) -> [String] {
        guard let head = try? SystemFile(path).read(headLimit, at: 0) else { return [] }
        return fields(inJPEGHead: head)
    }

    /// ``fields(inFileAt:)`` on the first bytes of a JPEG: a Ricoh `RMETA` block (APP5) with a
    /// `Location` field, where Ricoh cameras keep a place the user typed.
    static func fields(inJPEGHead bytes: [UInt8]) -> [String] {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return [] }
        var offset = 2
        var found: [String] = []
        let label = Array("Location".utf8) + [0]
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // the image data, or the end
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { break }
            let payload = bytes[(offset + 4)..<(offset + 2 + length)]
            if marker == 0xE5, payload.starts(with: JPEGFile.ricohSignature),
                JPEGFile.contains(payload, label) {
                found.append("Ricoh RMETA Location (APP5)")
            }
            offset += 2 + length
        }
        return found
    }
}
