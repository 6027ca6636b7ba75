import Foundation
import Testing
@testable import VaultCrypto
import TestSupport

/// Plaintext whose every byte depends on its position, so moved bytes are noticed.
func patterned(_ count: Int, salt: UInt8 = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8 &+ Int(salt)) }
}

extension Error {
    /// Whether this is a ``VaultCryptoError`` with `code`, about `path` and with `text` in its
    /// message when those are given.
    func isVaultError(_ code: VaultCryptoError.Code, path: String? = nil, mentioning text: String? = nil) -> Bool {
        guard let error = self as? VaultCryptoError, error.code == code else { return false }
        if let path, error.path != path { return false }
        if let text, !error.message.contains(text) { return false }
        return true
    }
}

@Suite("LOCA format: round trips and tampering")
struct LOCACipherTests {
    static let chunk = 1 << 12
    static let sizes = [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 17]
    static let availableAlgorithms = AEADAlgorithm.allCases.filter(\.isAvailable)

    @Test("sizes 0, 1, chunk-1, chunk, chunk+1 and several chunks round-trip with each algorithm", arguments: sizes)
    func roundTrip(size: Int) throws {
        for algorithm in Self.availableAlgorithms {
            let cipher = try LOCACipher(algorithm: algorithm, chunkExponent: 12)
            let key = SecretKey()
            let plaintext = patterned(size)
            let file = cipher.encrypt(plaintext, key: key)
            let header = try LOCAHeader(parsing: file, source: "test")
            #expect(header.algorithm == algorithm && header.originalSize == UInt64(size))
            #expect(UInt64(file.count) == header.fileSize)
            #expect(file.count == 64 + size + 16 * max(1, (size + Self.chunk - 1) / Self.chunk))
            #expect(try LOCACipher.decrypt(file, key: key) == plaintext)
        }
    }

    @Test("encrypt(_:into:) and decrypt(_:into:) reuse the caller's buffers, give the same files, and zero the buffer when a chunk fails")
    func intoReusedBuffers() throws {
        for algorithm in Self.availableAlgorithms {
            let cipher = try LOCACipher(algorithm: algorithm, chunkExponent: 12)
            let key = SecretKey()
            let plaintext = patterned(5 * Self.chunk + 3)
            var file = [UInt8](repeating: 0xEE, count: cipher.encryptedSize(ofPlaintext: plaintext.count))
            let storage = file.withUnsafeBufferPointer { $0.baseAddress }
            cipher.encrypt(plaintext, into: &file, key: key)
            #expect(file.withUnsafeBufferPointer { $0.baseAddress } == storage, "the file buffer was reused")
            #expect(try LOCACipher.decrypt(file, key: key) == plaintext)
            var opened = [UInt8](repeating: 0xEE, count: plaintext.count)
            try LOCACipher.decrypt(file, into: &opened, key: key)
            #expect(opened == plaintext)
            // Wrong sizes are resized, not trusted.
            var small: [UInt8] = [1, 2, 3]
            try LOCACipher.decrypt(file, into: &small, key: key)
            #expect(small == plaintext)
            var tooSmall: [UInt8] = []
            cipher.encrypt(plaintext, into: &tooSmall, key: key)
            #expect(try LOCACipher.decrypt(tooSmall, key: key) == plaintext)
            // A damaged last chunk: no plaintext at all is left in the caller's buffer.
            var damaged = file
            damaged[damaged.count - 1] ^= 0x01
            #expect(throws: VaultCryptoError.self) { try LOCACipher.decrypt(damaged, into: &opened, key: key) }
            #expect(opened.allSatisfy { $0 == 0 })
        }
    }

    @Test("a one-chunk file is exactly the seed's layout: header, ciphertext, tag")
    func seedLayout() throws {
        let file = try LOCACipher(algorithm: .chacha20Poly1305).encrypt(Array("hello".utf8), key: SecretKey())
        #expect(file.count == 64 + 5 + 16)
        #expect(Array(file[0..<4]) == Array("LOCA".utf8))
        #expect(file[4] == 0x00 && file[5] == 0x01 && file[6] == 0x02 && file[7] == 16)
    }

    @Test("flipping any single byte of the file makes decryption fail")
    func everyByteFlip() throws {
        for algorithm in Self.availableAlgorithms {
            let key = SecretKey()
            let file = try LOCACipher(algorithm: algorithm, chunkExponent: 12).encrypt(patterned(2 * Self.chunk + 100), key: key)
            for index in file.indices {
                var damaged = file
                damaged[index] ^= 0x01
                #expect(throws: VaultCryptoError.self, "flip at \(index)") { try LOCACipher.decrypt(damaged, key: key) }
            }
        }
    }

    @Test("truncation at every chunk boundary, appended bytes, swapped and duplicated chunks are all detected")
    func structuralTampering() throws {
        let key = SecretKey()
        let cipher = try LOCACipher(algorithm: .chacha20Poly1305, chunkExponent: 12)
        let plaintext = patterned(3 * Self.chunk)
        let file = cipher.encrypt(plaintext, key: key)
        let sealedChunk = Self.chunk + 16
        let chunks = (0..<3).map { Array(file[(64 + $0 * sealedChunk)..<(64 + ($0 + 1) * sealedChunk)]) }
        let header = Array(file[0..<64])

        for boundary in [64, 64 + sealedChunk, 64 + 2 * sealedChunk, file.count - 1, file.count - 16] {
            #expect(throws: VaultCryptoError.self) { try LOCACipher.decrypt(Array(file.prefix(boundary)), key: key) }
        }
        #expect { try LOCACipher.decrypt(file + [0], key: key) } throws: {
            $0.isVaultError(.trailingBytes, path: "LOCA data", mentioning: ": 1 unexpected bytes")
        }
        // Same length, so only the chunk nonces can catch these.
        #expect { try LOCACipher.decrypt(header + chunks[1] + chunks[0] + chunks[2], key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: "LOCA data", mentioning: "chunk 0 failed")
        }
        #expect { try LOCACipher.decrypt(header + chunks[0] + chunks[0] + chunks[2], key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: "LOCA data", mentioning: "chunk 1 failed")
        }
        // A shorter plaintext size in the header with the tail cut off: the header is
        // authenticated, and the new last chunk was not sealed as the last one.
        var shortened = header
        shortened.replaceSubrange(20..<28, with: bigEndianBytes(UInt64(2 * Self.chunk)))
        #expect(throws: VaultCryptoError.self) { try LOCACipher.decrypt(shortened + chunks[0] + chunks[1], key: key) }
    }

    @Test("the wrong key is detected by the key commitment before any decryption")
    func wrongKey() throws {
        let file = try LOCACipher().encrypt(patterned(1000), key: SecretKey())
        #expect { try LOCACipher.decrypt(file, key: SecretKey()) } throws: { $0.isVaultError(.wrongKey, path: "LOCA data") }
    }

    @Test("an error carries a code with a stable name, the path, and its message as its description")
    func errorFields() {
        let error = VaultCryptoError.wrongKey(source: "a.loca")
        #expect(error.code == .wrongKey && error.code.rawValue == "wrong-key" && error.code.description == "wrong-key")
        #expect(error.path == "a.loca" && error.systemCode == nil && !error.isRetryable)
        #expect(error.description == "a.loca: this file was encrypted with a different key")
        let busy = VaultCryptoError.writeFailed(path: "k", reason: "busy", systemCode: 16, isRetryable: true)
        #expect(busy.code == .writeFailed && busy.systemCode == 16 && busy.isRetryable)
        #expect(VaultCryptoError.Code(rawValue: "not-loca") == .notLOCA)
    }

    @Test("the parser rejects bad magic, unknown versions, algorithms and chunk sizes with typed errors")
    func parserRejections() throws {
        let key = SecretKey()
        let file = try LOCACipher(algorithm: .chacha20Poly1305).encrypt(patterned(10), key: key)
        func patched(_ offset: Int, _ value: UInt8) -> [UInt8] {
            var copy = file
            copy[offset] = value
            return copy
        }
        #expect { try LOCAHeader(parsing: patched(0, 0x4D), source: "f") } throws: { $0.isVaultError(.notLOCA, path: "f") }
        #expect { try LOCAHeader(parsing: patched(5, 2), source: "f") } throws: { $0.isVaultError(.unsupportedVersion, path: "f", mentioning: "version 2 ") }
        #expect { try LOCAHeader(parsing: patched(6, 3), source: "f") } throws: { $0.isVaultError(.unknownAlgorithm, path: "f", mentioning: "0x3;") }
        #expect { try LOCAHeader(parsing: patched(7, 40), source: "f") } throws: { $0.isVaultError(.invalidChunkSize, path: "f", mentioning: "exponent 40 ") }
        #expect { try LOCAHeader(parsing: patched(7, 0), source: "f") } throws: { $0.isVaultError(.invalidChunkSize, path: "f", mentioning: "exponent 0 ") }
        #expect { try LOCAHeader(parsing: file.prefix(10), source: "f") } throws: {
            $0.isVaultError(.truncated, path: "f", mentioning: "(10 bytes, its header needs 64)")
        }
        #expect { try LOCAHeader(parsing: Array("not encrypted at all".utf8), source: "f") } throws: { $0.isVaultError(.notLOCA, path: "f") }
        // A size claiming more than 2^32 chunks.
        var huge = file
        huge.replaceSubrange(20..<28, with: bigEndianBytes(UInt64.max))
        #expect { try LOCAHeader(parsing: huge, source: "f") } throws: { $0.isVaultError(.fileTooLarge, path: "f", mentioning: "\(UInt64.max) bytes") }
    }

    @Test("AES-256-GCM is chosen automatically exactly when the CPU supports it")
    func automaticChoice() throws {
        #expect(AEADAlgorithm.preferred == (AEADAlgorithm.aes256GCM.isAvailable ? .aes256GCM : .chacha20Poly1305))
        #expect(try LOCACipher().algorithm == AEADAlgorithm.preferred)
        #expect(AEADAlgorithm.chacha20Poly1305.isAvailable)
    }

    @Test("two encryptions of the same plaintext under the same key never share a nonce")
    func freshNonces() throws {
        let key = SecretKey()
        let cipher = try LOCACipher()
        let nonces = Set((0..<50).map { _ in Array(cipher.encrypt([1, 2, 3], key: key)[8..<20]) })
        #expect(nonces.count == 50)
    }
}

@Suite("LOCA files on disk: streaming and byte ranges")
struct LOCAFileTests {
    @Test("a file is encrypted and decrypted chunk by chunk, the output is mode 0600, and nothing stays behind")
    func streaming() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plaintext = patterned(5 * 4096 + 123)
        try Data(plaintext).write(to: URL(fileURLWithPath: folder + "/photo.jpg"))
        let key = SecretKey()
        try LOCACipher(chunkExponent: 12).encryptFile(at: folder + "/photo.jpg", to: folder + "/photo.encrypted", key: key)
        let encrypted = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/photo.encrypted")))
        #expect(try LOCACipher.decrypt(encrypted, key: key) == plaintext)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/photo.encrypted")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try LOCACipher.header(ofFileAt: folder + "/photo.encrypted").originalSize == UInt64(plaintext.count))

        try LOCACipher.decryptFile(at: folder + "/photo.encrypted", to: folder + "/export.jpg", key: key)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/export.jpg"))) == plaintext)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["photo.jpg", "photo.encrypted", "export.jpg"])
    }

    @Test("a damaged file exports nothing: no output file, no temporary file")
    func damagedExport() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = SecretKey()
        var file = try LOCACipher(chunkExponent: 12).encrypt(patterned(3 * 4096), key: key)
        file[file.count - 20] ^= 0x80  // inside the last chunk
        try Data(file).write(to: URL(fileURLWithPath: folder + "/damaged.encrypted"))
        #expect { try LOCACipher.decryptFile(at: folder + "/damaged.encrypted", to: folder + "/out.jpg", key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: folder + "/damaged.encrypted", mentioning: "chunk 2 failed")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["damaged.encrypted"])
    }

    @Test("any byte range decrypts correctly and reads only the chunks it needs")
    func ranges() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = SecretKey()
        let plaintext = patterned(4 * 4096 + 10)
        var file = try LOCACipher(chunkExponent: 12).encrypt(plaintext, key: key)
        // Damage chunk 3: ranges inside chunks 0...2 must still decrypt, proving chunk 3 is not read.
        file[64 + 3 * (4096 + 16) + 5] ^= 1
        let path = folder + "/v.encrypted"
        try Data(file).write(to: URL(fileURLWithPath: path))
        for range: Range<UInt64> in [0..<0, 0..<1, 100..<4096, 4095..<4097, 10..<(3 * 4096)] {
            let bytes = try LOCACipher.decrypt(range: range, ofFileAt: path, key: key)
            #expect(bytes == Array(plaintext[Int(range.lowerBound)..<Int(range.upperBound)]))
        }
        #expect { try LOCACipher.decrypt(range: (3 * 4096)..<(3 * 4096 + 1), ofFileAt: path, key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: path, mentioning: "chunk 3 failed")
        }
        #expect(throws: VaultCryptoError.self) { try LOCACipher.decrypt(range: 0..<UInt64(plaintext.count + 1), ofFileAt: path, key: key) }
    }
}

@Suite("LOCA: many chunks, sealed and opened on several cores")
struct LOCAParallelTests {
    @Test("a 40-chunk file round-trips and a damaged chunk is reported by its index", arguments: [0, 17, 39])
    func manyChunks(damagedChunk: Int) throws {
        let key = SecretKey()
        let plaintext = patterned(40 * 4096 - 5)
        let file = try LOCACipher(algorithm: .chacha20Poly1305, chunkExponent: 12).encrypt(plaintext, key: key)
        #expect(try LOCACipher.decrypt(file, key: key) == plaintext)
        var damaged = file
        damaged[64 + damagedChunk * (4096 + 16) + 100] ^= 0x10
        #expect { try LOCACipher.decrypt(damaged, key: key) } throws: {
            $0.isVaultError(.authenticationFailed, path: "LOCA data", mentioning: "chunk \(damagedChunk) failed")
        }
        // The same through files, in batches.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(plaintext).write(to: URL(fileURLWithPath: folder + "/in"))
        try LOCACipher(chunkExponent: 12).encryptFile(at: folder + "/in", to: folder + "/in.loca", key: key)
        try LOCACipher.decryptFile(at: folder + "/in.loca", to: folder + "/out", key: key)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/out"))) == plaintext)
        let range = try LOCACipher.decrypt(range: 4000..<(300 * 512), ofFileAt: folder + "/in.loca", key: key)
        #expect(range == Array(plaintext[4000..<(300 * 512)]))
    }
}
