internal import MemoraSystem

/// Tokens and join codes: random bytes from the system's secure generator, in URL-safe base 64;
/// the server keeps only their SHA-256.
enum ServerSecrets {
    static func randomToken(bytes count: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    static func hash(_ token: String) -> String {
        let digest = StreamingSHA256()
        digest.update(Array(token.utf8))
        return digest.finalizeHex()
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
            for position in 0..<(chunk.count + 1) { output.append(alphabet[Int((value >> (18 - 6 * UInt32(position))) & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Compares two secrets in time that does not depend on where they differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(left, right) { difference |= x ^ y }
        return difference == 0
    }
}
