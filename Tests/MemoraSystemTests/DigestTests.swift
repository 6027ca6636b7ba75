import Testing
@testable import MemoraSystem

/// Lowercase hex of `bytes`, for comparing digests with published values.
private func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

/// One megabyte of a fixed, non-repeating-per-block pattern: byte i is (31 i + 7) mod 256.
private let megabyte: [UInt8] = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

/// MD5 against the RFC 1321 appendix A.5 test suite and hashlib-computed values.
struct MD5Tests {
    /// The RFC 1321 test suite (each value also checked with Python's hashlib).
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func rfc1321Suite(message: String, expected: String) {
        #expect(hex(MD5.digest(Array(message.utf8))) == expected)
        #expect(hex(MD5.digest(message.utf8)) == expected)
    }

    /// Lengths around the padding boundary: 55 bytes fit one block, 56 and 64 need two.
    @Test(arguments: [
        (55, "ef1772b6dff9a122358552954ad0df65"),
        (56, "3b0c8ac703f828b04c6c197006d17218"),
        (64, "014842d480b571495a4a0363793f7367"),
    ])
    func paddingBoundaries(length: Int, expected: String) {
        #expect(hex(MD5.digest([UInt8](repeating: 0x61, count: length))) == expected)
    }

    /// A 1 MB input (value from hashlib), through the contiguous and the generic paths.
    @Test func oneMegabyte() {
        let expected = "3f2c8bd9cfde6550fdff4b36617c3261"
        #expect(hex(MD5.digest(megabyte)) == expected)
        #expect(hex(MD5.digest(megabyte.lazy.map { $0 })) == expected)
    }

    /// Slices are hashed from their own start, not their base's.
    @Test func slice() {
        let bytes = Array("xxabcxx".utf8)
        #expect(hex(MD5.digest(bytes[2..<5])) == "900150983cd24fb0d6963f7d28e17f72")
    }
}


/// SHA-256 against FIPS 180-4's examples and hashlib-computed values, in one piece, in pieces and from a file.
struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func fipsExamples(message: String, expected: String) {
        #expect(hex(SHA256Digest.hash(Array(message.utf8))) == expected)
        // The streaming form (for loops with suspension points), fed in two pieces.
        let streaming = StreamingSHA256()
        let bytes = Array(message.utf8)
        streaming.update(Array(bytes.prefix(bytes.count / 2)))
        streaming.update(Array(bytes.dropFirst(bytes.count / 2)))
        #expect(streaming.finalizeHex() == expected)
    }

    /// A 1 MB input (value from hashlib), whole, fed in uneven pieces, and read from a file.
    @Test func oneMegabyte() throws {
        let expected = "06b7bbfb7824aa03382051691630eb26de85102d1b08a81e907ec0744cd8a286"
        let whole = hex(SHA256Digest.hash(megabyte))
        #expect(whole == expected)
        var pieces = SHA256Digest()
        var offset = 0
        for size in [1, 63, 64, 65, 4096, 100_000] + Array(repeating: 200_000, count: 6) where offset < megabyte.count {
            let end = min(offset + size, megabyte.count)
            pieces.update(Array(megabyte[offset..<end]))
            offset = end
        }
        pieces.update(Array(megabyte[offset...]))
        #expect(hex(pieces.finalize()) == whole)
        let folder = try TemporaryFolder()
        let path = folder.path + "/megabyte.bin"
        try AtomicFileWriter.write(megabyte, to: path)
        #expect(hex(try SHA256Digest.hash(contentsOf: path)) == whole)
    }
}
