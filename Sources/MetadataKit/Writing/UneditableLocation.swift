internal import MemoraSystem

/// Location fields a strip cannot remove, because no editor Memora has (nor libexiv2, nor exiftool)
/// can rewrite the block that holds them: found after a strip so the file is reported, not counted
/// as clean.
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
        let rmeta = Array("RMETA".utf8) + [0], label = Array("Location".utf8) + [0]
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xDA || marker == 0xD9 { break }  // the image data, or the end
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { break }
            let payload = bytes[(offset + 4)..<(offset + 2 + length)]
            if marker == 0xE5, payload.starts(with: rmeta), Self.contains(payload, label) {
                found.append("Ricoh RMETA Location (APP5), which Memora cannot edit")
            }
            offset += 2 + length
        }
        return found
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
