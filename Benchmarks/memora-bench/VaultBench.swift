import Foundation
import VaultCrypto

/// The VaultCrypto scenarios of memora-bench.
enum VaultBench {
    /// Scenario 3: LOCA encryption and decryption of a buffer in memory, against one raw
    /// libsodium AEAD call over the same buffer, both producing a new output buffer, for each
    /// available algorithm; once on all cores, once pinned to one core (the format's own overhead).
    /// The limit of a raw call into a reused buffer is printed too.
    static func inMemory(megabytes: Int, rounds: Int) throws {
        let size = megabytes << 20
        var plaintext = [UInt8](repeating: 0, count: size)
        for index in stride(from: 0, to: size, by: 4096) { plaintext[index] = UInt8(truncatingIfNeeded: index >> 12) }
        var ciphertext = [UInt8](repeating: 0, count: size)
        var opened = [UInt8](repeating: 0, count: size)
        var tag = [UInt8](repeating: 0, count: 16)
        let key = SecretKey()
        for algorithm in AEADAlgorithm.allCases where algorithm.isAvailable {
            let cipher = try LOCACipher(algorithm: algorithm)
            precondition(RawPeers.seal(algorithm: algorithm.rawValue, plaintext, into: &ciphertext, tag: &tag))
            print("3. \(algorithm) on \(megabytes) MiB in memory (LOCA: 64 KiB chunks, returns a new buffer)")
            for singleCore in [false, true] {
                guard RawPeers.useSingleCPU(singleCore) else { continue }
                var oursSeal: [Double] = [], rawSeal: [Double] = [], oursOpen: [Double] = [], rawOpen: [Double] = []
                var reusedSeal: [Double] = [], reusedOpen: [Double] = [], oursSealInto: [Double] = [], oursOpenInto: [Double] = []
                var reusedFile = [UInt8](repeating: 0, count: cipher.encryptedSize(ofPlaintext: size))
                var reusedPlaintext = [UInt8](repeating: 0, count: size)
                for _ in 0..<rounds {
                    var file: [UInt8] = []
                    oursSeal.append(try Bench.seconds { file = cipher.encrypt(plaintext, key: key) })
                    rawSeal.append(try Bench.seconds { precondition(RawPeers.sealIntoNewBuffer(algorithm: algorithm.rawValue, plaintext)) })
                    reusedSeal.append(try Bench.seconds {
                        precondition(RawPeers.seal(algorithm: algorithm.rawValue, plaintext, into: &ciphertext, tag: &tag))
                    })
                    oursOpen.append(try Bench.seconds {
                        let decrypted = try LOCACipher.decrypt(file, key: key)
                        precondition(decrypted.count == size)
                    })
                    rawOpen.append(try Bench.seconds { precondition(RawPeers.openIntoNewBuffer(algorithm: algorithm.rawValue, ciphertext, tag: tag)) })
                    oursSealInto.append(try Bench.seconds { cipher.encrypt(plaintext, into: &reusedFile, key: key) })
                    oursOpenInto.append(try Bench.seconds { try LOCACipher.decrypt(file, into: &reusedPlaintext, key: key) })
                    precondition(reusedPlaintext == plaintext)
                    reusedOpen.append(try Bench.seconds {
                        precondition(RawPeers.open(algorithm: algorithm.rawValue, ciphertext, tag: tag, into: &opened))
                    })
                }
                func rate(_ values: [Double]) -> Double { Double(megabytes) / Bench.median(values) }
                let cores = singleCore ? "1 core " : "\(ProcessInfo.processInfo.activeProcessorCount) cores"
                for (name, ours, oursInto, raw, reused) in [("encrypt", oursSeal, oursSealInto, rawSeal, reusedSeal),
                                                             ("decrypt", oursOpen, oursOpenInto, rawOpen, reusedOpen)] {
                    // The target compares the same work on the same buffers: ours into a reused buffer
                    // (`encrypt(_:into:)`, `decrypt(_:into:)`) against one raw call into a reused buffer.
                    let ratio = rate(oursInto) / rate(reused)
                    print(String(
                        format: "   %@ %@: ours into a reused buffer %6.0f MiB/s, raw libsodium into a reused buffer %6.0f MiB/s: %3.0f%% (target >= 90%%: %@)",
                        cores, name, rate(oursInto), rate(reused), ratio * 100, ratio >= 0.9 ? "met" : "NOT met"))
                    print(String(format: "   %@ %@: ours returning a new buffer %6.0f MiB/s, raw into a new buffer %6.0f MiB/s: %3.0f%%",
                                 cores, name, rate(ours), rate(raw), rate(ours) / rate(raw) * 100))
                }
            }
            _ = RawPeers.useSingleCPU(false)
            print("")
        }
    }

    /// Scenario 4: encrypting and decrypting a file on disk, against Debian's `age`
    /// (ChaCha20-Poly1305 in 64 KiB chunks, to an X25519 recipient), with our peak memory.
    static func files(megabytes: Int, rounds: Int) throws {
        let folder = NSTemporaryDirectory() + "memora-bench-vault-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/input.bin"
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        _ = FileManager.default.createFile(atPath: input, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        for block in 0..<megabytes {
            for index in stride(from: 0, to: chunk.count, by: 512) { chunk[index] = UInt8(truncatingIfNeeded: block &+ index) }
            handle.write(Data(chunk))
        }
        try handle.close()
        guard let age = which("age"), let ageKeygen = which("age-keygen") else {
            print("4. file encryption against age: skipped (install Debian's `age` package)\n")
            return
        }
        try run(ageKeygen, ["-o", folder + "/age.key"])
        let recipient = try String(contentsOfFile: folder + "/age.key", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("# public key: ") }.map { String($0.dropFirst("# public key: ".count)) } ?? ""
        let key = SecretKey()
        for algorithm in AEADAlgorithm.allCases where algorithm.isAvailable {
            let cipher = try LOCACipher(algorithm: algorithm)
            var oursSeal: [Double] = [], ageSeal: [Double] = [], oursOpen: [Double] = [], ageOpen: [Double] = []
            for _ in 0..<rounds {
                oursSeal.append(try Bench.seconds { try cipher.encryptFile(at: input, to: folder + "/ours.loca", key: key) })
                // age does not fsync its output; we do, so age's time includes an fsync too.
                ageSeal.append(try Bench.seconds {
                    try run(age, ["-r", recipient, "-o", folder + "/theirs.age", input])
                    try fsyncFile(folder + "/theirs.age")
                })
                // Both encrypted files start in the page cache: ours was written past it (direct
                // I/O), age's through it, and reading one from the disk would be a different race.
                try warm(folder + "/ours.loca")
                try warm(folder + "/theirs.age")
                oursOpen.append(try Bench.seconds { try LOCACipher.decryptFile(at: folder + "/ours.loca", to: folder + "/ours.out", key: key) })
                ageOpen.append(try Bench.seconds {
                    try run(age, ["-d", "-i", folder + "/age.key", "-o", folder + "/theirs.out", folder + "/theirs.age"])
                    try fsyncFile(folder + "/theirs.out")
                })
            }
            func rate(_ values: [Double]) -> Double { Double(megabytes) / Bench.median(values) }
            print("4. \(algorithm), \(megabytes) MiB file to file (output fsynced on both sides), against age \(ageVersion(age))")
            for (name, ours, theirs) in [("encrypt", oursSeal, ageSeal), ("decrypt", oursOpen, ageOpen)] {
                let ratio = rate(ours) / rate(theirs)
                print(String(format: "   %@: ours %6.0f MiB/s, age %6.0f MiB/s: %.2fx (target >= 1.5: %@)",
                             name, rate(ours), rate(theirs), ratio, ratio >= 1.5 ? "met" : "NOT met"))
            }
        }
        // Peak memory of a streaming encryption, measured in a fresh process that links
        // VaultCrypto alone (built beside this binary by scripts/bench.sh).
        let probePath = (CommandLine.arguments[0] as NSString).deletingLastPathComponent + "/loca-memory-probe"
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            print("   peak memory: skipped (build the loca-memory-probe product beside memora-bench: scripts/bench.sh does)\n")
            return
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: probePath)
        probe.arguments = [input, folder + "/probe.loca"]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        let figures = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").compactMap { Double($0) }
        guard figures.count == 2 else { throw BenchError("the memory probe printed \(output)") }
        print(String(format: "   peak memory of a process encrypting the %d MiB file (loca-memory-probe, VaultCrypto alone): %.1f MiB (target < 32 MiB: %@); %.1f MiB of it before the encryption started\n",
                     megabytes, figures[1], figures[1] < 32 ? "met" : "NOT met", figures[0]))
    }

    /// Reads a whole file once, so that it is in the page cache.
    static func warm(_ path: String) throws {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty {}
    }

    private static func fsyncFile(_ path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.synchronize()
        try handle.close()
    }

    private static func which(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func ageVersion(_ age: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: age)
        process.arguments = ["--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(executable) \(arguments.joined(separator: " ")) failed") }
    }
}
