/// Paths as the kernel sees them: bytes.
///
/// Memora's APIs take paths as `String`, but a Linux file name is any sequence of bytes,
/// and a name written by an older program in Latin-1 (`café` as `63 61 66 E9`) is not
/// valid UTF-8. Decoded the usual way its invalid bytes become U+FFFD and the path no
/// longer names the file. The system layer therefore decodes names losslessly: each byte
/// that is not part of valid UTF-8 becomes one scalar in the private-use range
/// U+10FF00–U+10FFFF, and turning the string back into a path restores the byte. Valid
/// UTF-8 names are unchanged. Every system call in the package goes through
/// ``withCString(_:_:)``, so such a path opens, lists, renames and deletes like any other.
package enum SystemPath {
    /// The first scalar of the escape range; `escapeBase + b` stands for the invalid byte `b`.
    static let escapeBase: UInt32 = 0x10FF00

    /// The string for a file name or path read from the system.
    package static func string<Bytes: Collection>(fromBytes bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let decoded = String(decoding: bytes, as: UTF8.self)
        if decoded.utf8.elementsEqual(bytes) { return decoded }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = bytes.startIndex
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                position = bytes.index(position, offsetBy: encoded.count)
            case .error(let length):
                for _ in 0..<length {
                    scalars.append(Unicode.Scalar(escapeBase + UInt32(bytes[position]))!)
                    position = bytes.index(after: position)
                }
            case .emptyInput:
                break loop
            }
        }
        return String(scalars)
    }

    /// The byte `scalar` stands for when it is an escaped byte of a name that is not UTF-8, else nil.
    package static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= escapeBase ? UInt8(scalar.value - escapeBase) : nil
    }

    /// The bytes `path` stands for (without a terminating zero).
    package static func bytes(_ path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: { $0.value >= escapeBase }) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with `path` as a zero-terminated C string of its bytes.
    package static func withCString<Result, Failure: Error>(
        _ path: String, _ body: (UnsafePointer<CChar>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var bytes = bytes(path).map { CChar(bitPattern: $0) }
        bytes.append(0)
        let outcome: Swift.Result<Result, Failure> = bytes.withUnsafeBufferPointer { buffer in
            do throws(Failure) { return .success(try body(buffer.baseAddress!)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// `path` for a person to read: escaped bytes shown as U+FFFD.
    package static func displayName(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: { $0.value >= escapeBase }) else { return path }
        return String(String.UnicodeScalarView(path.unicodeScalars.map { $0.value >= escapeBase ? "\u{FFFD}" : $0 }))
    }

    /// The folder part of `path` (`"."` for a bare name, `"/"` for a file at the root).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of `path`.
    package static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `folder` and `name` joined with one slash.
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Whether `path`, after `..` and `.` components are resolved lexically, stays inside `folder`.
    /// (Symbolic links are not resolved: use ``FileSystem/resolvedPath(_:)`` first when they matter.)
    package static func isContained(_ path: String, in folder: String) -> Bool {
        let base = normalized(folder)
        let full = normalized(path.hasPrefix("/") ? path : join(folder, path))
        return full == base || full.hasPrefix(base == "/" ? "/" : base + "/")
    }

    /// `path` with `.` and `..` components resolved lexically and repeated slashes removed.
    package static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if let last = parts.last, last != ".." { parts.removeLast() } else if !path.hasPrefix("/") { parts.append(part) }
                continue
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
