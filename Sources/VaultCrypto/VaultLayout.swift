internal import MemoraSystem

/// The names inside a vault folder (Docs/Vault.md, "The folder"), and the only ones the vault
/// reads, writes or deletes: a photo id is a lowercase UUID, its file is
/// `Photos/YYYY/MM/{id}.encrypted` and its thumbnail `Thumbnails/{id}.thumb`. A name taken from
/// the catalogue is checked against these patterns and resolved inside the folder before any file
/// is touched, so a tampered row cannot point outside the vault.
enum VaultLayout {
    /// Whether `id` is a photo id: 36 characters, a lowercase UUID (`8-4-4-4-12` hexadecimal digits).
    static func isPhotoID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard isLowercaseHexDigit(byte) else { return false }
            }
        }
        return true
    }

    /// The relative path of photo `id` taken in year `year` and month `month` (UTC).
    static func photoPath(id: String, year: Int, month: Int) -> String {
        "Photos/" + digits(year, 4) + "/" + digits(month, 2) + "/" + id + ".encrypted"
    }

    /// Whether `path` is the relative path of photo `id`: `Photos/YYYY/MM/{id}.encrypted`.
    static func isPhotoPath(_ path: String, id: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "Photos", parts[3] == id + ".encrypted",
              parts[1].utf8.count == 4, parts[2].utf8.count == 2 else { return false }
        return (Array(parts[1].utf8) + Array(parts[2].utf8)).allSatisfy(isDecimalDigit)
    }

    /// The relative path of photo `id`'s thumbnail.
    static func thumbnailPath(id: String) -> String { "Thumbnails/" + id + ".thumb" }
    /// Where a photo captured from a stream waits, encrypted, until its size is known
    /// (`Thumbnails/.{id}.spool.memora-XXXXXX`, a temporary file name: removed when a crash left it).
    static func spoolPath(id: String) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let suffix = String(SecureRandom.bytes(count: 6).map { letters[Int($0) % letters.count] })
        return "Thumbnails/." + id + ".spool.memora-" + suffix
    }

    /// The id in an encrypted file's name (`{id}.encrypted`), or nil when it is not one.
    static func photoID(inFileName name: String) -> String? {
        guard name.hasSuffix(".encrypted") else { return nil }
        let id = String(name.dropLast(".encrypted".count))
        return isPhotoID(id) ? id : nil
    }

    /// Whether `name` is a year (`YYYY`) or month (`MM`) folder of `Photos`.
    static func isDateFolder(_ name: String, digits count: Int) -> Bool {
        name.utf8.count == count && name.utf8.allSatisfy(isDecimalDigit)
    }

    /// Whether `name` is the temporary file of a vault file that an interrupted add left:
    /// `.{id}.encrypted.memora-XXXXXX` or `.{id}.thumb.memora-XXXXXX` (the system layer's atomic
    /// write), or the same with `.tmp-XXXXXX` (versions before it), or a capture's encrypted spool
    /// `.{uuid}.spool.memora-XXXXXX`; `X` is a letter or digit.
    static func isTemporaryFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.first == UInt8(ascii: "."), bytes.count > 1 + 36 + 7 else { return false }
        guard isPhotoID(String(decoding: bytes[1..<37], as: UTF8.self)) else { return false }
        let rest = String(decoding: bytes[37...], as: UTF8.self)
        for kind in [".encrypted.", ".thumb.", ".spool."] {
            for marker in ["memora-", "tmp-"] where rest.hasPrefix(kind + marker) {
                let suffix = rest.utf8.dropFirst(kind.utf8.count + marker.utf8.count)
                return suffix.count == 6 && suffix.allSatisfy { isDecimalDigit($0) || isLetter($0) }
            }
        }
        return false
    }

    /// Removes the temporary files of interrupted adds (``isTemporaryFileName(_:)``) from
    /// `Photos/YYYY/MM/` and `Thumbnails/` of the vault in `folder`; nothing else, no symbolic
    /// link and nothing outside the folder. The caller holds the vault lock exclusively, so no
    /// add is in progress. Returns the relative paths removed.
    @discardableResult
    static func removeTemporaryFiles(inVault folder: String) -> [String] {
        var folders = ["Thumbnails"]
        for year in VaultFiles.names(in: folder + "/Photos") where isDateFolder(year, digits: 4) {
            for month in VaultFiles.names(in: folder + "/Photos/" + year) where isDateFolder(month, digits: 2) {
                folders.append("Photos/" + year + "/" + month)
            }
        }
        var removed: [String] = []
        for relativeFolder in folders {
            for name in VaultFiles.names(in: folder + "/" + relativeFolder) where isTemporaryFileName(name) {
                let relative = relativeFolder + "/" + name
                guard let path = FileSystem.pathInside(folder, relativePath: relative),
                      FileSystem.statusIfPresent(of: path, followingLinks: false)?.kind == .regular,
                      (try? FileSystem.remove(path)) != nil else { continue }
                removed.append(relative)
            }
        }
        return removed
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        isDecimalDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func isDecimalDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func digits(_ value: Int, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }
}
