import Foundation
import MemoraSystem
import Testing

/// The vault's safety rules as a user meets them: the built `memora`, its output and exit status.
@Suite("memora vault, guarded")
struct VaultCLITests {
    /// A vault in the CLI's folder with one photo; returns the vault, its key file and the photo's id.
    func vaultWithPhoto(_ cli: CLI) throws -> (vault: String, key: String, id: String, photo: String) {
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        let photo = try cli.photo("a.jpg")
        let added = try cli.run("vault", "add", "--vault", vault, "--key-file", key, photo)
        let id = String(added.out.prefix(36))
        return (vault, key, id, photo)
    }

    @Test("export into the vault folder fails and leaves the catalogue; an existing output is replaced only with --force")
    func exportOutputs() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key, id, photo) = try vaultWithPhoto(cli)
        let catalogue = try SystemFile(vault + "/vault.sqlite").readAll()
        let inside = try cli.run("vault", "export", "--vault", vault, "--key-file", key, id, "--output", vault + "/vault.sqlite")
        #expect(inside.status != 0 && inside.err.contains("inside the vault folder"), "\(inside)")
        #expect(try SystemFile(vault + "/vault.sqlite").readAll() == catalogue)
        #expect(try cli.run("vault", "verify", "--vault", vault, "--key-file", key).status == 0)

        let other = try cli.photo("other.jpg", seed: 2)
        let before = try SystemFile(other).readAll()
        let refused = try cli.run("vault", "export", "--vault", vault, "--key-file", key, id, "--output", other)
        #expect(refused.status != 0 && refused.err.contains("--force"))
        #expect(try SystemFile(other).readAll() == before)
        #expect(try cli.run("vault", "export", "--vault", vault, "--key-file", key, id, "--output", other, "--force").status == 0)
        #expect(try SystemFile(other).readAll() == SystemFile(photo).readAll())
    }

    @Test("image thumbnail never replaces its input, or any file, without --force")
    func thumbnailOutputs() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let before = try SystemFile(photo).readAll()
        let refused = try cli.run("image", "thumbnail", photo, "--output", photo)
        #expect(refused.status != 0 && refused.err.contains("already exists"), "\(refused)")
        #expect(try SystemFile(photo).readAll() == before)
        let thumbnail = cli.folder + "/t.jpg"
        #expect(try cli.run("image", "thumbnail", photo, "--output", thumbnail).status == 0)
        #expect(try cli.run("image", "thumbnail", photo, "--output", thumbnail).status != 0)
        #expect(try cli.run("image", "thumbnail", photo, "--output", thumbnail, "--size", "64", "--force").status == 0)
    }

    @Test("adding the same photo again prints the existing id instead of a copy")
    func duplicateAdd() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key, id, photo) = try vaultWithPhoto(cli)
        let again = try cli.run("vault", "add", "--vault", vault, "--key-file", key, photo)
        #expect(again.status == 0 && again.out.hasPrefix(id) && again.out.contains("already in the vault"), "\(again)")
        let list = try cli.run("vault", "list", "--vault", vault, "--key-file", key)
        #expect(list.out.split(separator: "\n").count == 1)
    }

    @Test("a tampered catalogue path is refused by remove, and the file it names is untouched")
    func tamperedRemove() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key, id, _) = try vaultWithPhoto(cli)
        let precious = cli.folder + "/precious.txt"
        try AtomicFileWriter.write(Array("keep".utf8), to: precious)
        let sql = "UPDATE photo SET relative_path = '../precious.txt'"
        let edited = try ChildProcess.run("/usr/bin/sqlite3", [vault + "/vault.sqlite", sql], environment: [:],
                                          outputPath: cli.folder + "/.sql-out", errorPath: cli.folder + "/.sql-err")
        try #require(edited.status == 0, "sqlite3 is needed to edit the catalogue")
        let removed = try cli.run("vault", "remove", "--vault", vault, "--key-file", key, "--yes", id)
        #expect(removed.status != 0 && removed.err.contains("modified outside Memora"), "\(removed)")
        #expect(try SystemFile(precious).readAll() == Array("keep".utf8))
    }

    @Test("verify exits non-zero while the vault is unhealthy, with or without --repair")
    func verifyExitStatus() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key, _, _) = try vaultWithPhoto(cli)
        let encrypted = try #require(FolderWalker(root: vault + "/Photos").files().first).path
        var bytes = try SystemFile(encrypted).readAll()
        bytes[bytes.count - 20] ^= 1
        try AtomicFileWriter.write(bytes, to: encrypted)
        #expect(try cli.run("vault", "verify", "--vault", vault, "--key-file", key).status != 0)
        let repaired = try cli.run("vault", "verify", "--vault", vault, "--key-file", key, "--repair")
        #expect(repaired.status != 0 && repaired.out.contains("damaged"), "\(repaired)")
    }

    @Test("passphrases: a key made without one says so; MEMORA_PASSPHRASE set does not stop an unprotected vault opening; a protected one without it is a message, not a usage line")
    func passphrases() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key) = (cli.folder + "/plain", cli.folder + "/plain.key")
        let made = try cli.run("vault", "init", "--vault", vault, "--key-file", key)
        #expect(made.status == 0 && made.out.contains("not protected by a passphrase") && made.err.contains("has no passphrase"), "\(made)")
        let photo = try cli.photo("a.jpg")
        #expect(try cli.run("vault", "add", "--vault", vault, "--key-file", key, photo).status == 0)
        let withVariable = try cli.run(executable: cli.executable, ["vault", "list", "--vault", vault, "--key-file", key], environment: ["MEMORA_PASSPHRASE": "for another vault"])
        #expect(withVariable.status == 0 && withVariable.out.contains("a.jpg") && withVariable.err.contains("opens without one"), "\(withVariable)")

        let (locked, lockedKey) = (cli.folder + "/locked", cli.folder + "/locked.key")
        let protected = try cli.run(executable: cli.executable, ["vault", "init", "--vault", locked, "--key-file", lockedKey], environment: ["MEMORA_PASSPHRASE": "correct horse"])
        #expect(protected.status == 0 && protected.out.contains("protected by your passphrase") && !protected.err.contains("no passphrase"), "\(protected)")
        let missing = try cli.run("vault", "list", "--vault", locked, "--key-file", lockedKey)
        #expect(missing.status == 2 && missing.err.contains("set MEMORA_PASSPHRASE") && !missing.err.contains("Usage"), "\(missing)")
    }

    @Test("verify names each damaged photo's file; its JSON holds ids as stored; list shows the other photos when one record was changed outside Memora")
    func reportsNameFiles() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (vault, key, id, _) = try vaultWithPhoto(cli)
        let second = try cli.photo("b.jpg", seed: 3)
        let added = try cli.run("vault", "add", "--vault", vault, "--key-file", key, second)
        let secondID = String(added.out.prefix(36))
        let encrypted = try #require(FolderWalker(root: vault + "/Photos").files().first { $0.path.contains(id) }).path
        var bytes = try SystemFile(encrypted).readAll()
        bytes[bytes.count - 20] ^= 1
        try AtomicFileWriter.write(bytes, to: encrypted)
        let verified = try cli.run("vault", "verify", "--vault", vault, "--key-file", key)
        #expect(verified.status == 1 && verified.out.contains("damaged: \(id) (a.jpg)"), "\(verified)")

        let edited = try ChildProcess.run("/usr/bin/sqlite3", [vault + "/vault.sqlite", "UPDATE photo SET original_filename = 'renamed.jpg' WHERE id = '\(secondID)'"],
                                          environment: [:], outputPath: cli.folder + "/.sql-out", errorPath: cli.folder + "/.sql-err")
        try #require(edited.status == 0, "sqlite3 is needed to edit the catalogue")
        let json = try cli.run("vault", "verify", "--vault", vault, "--key-file", key, "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json)")
        #expect(report["tampered_records"] as? [String] == [secondID], "\(json.out)")
        #expect((report["file_names"] as? [String: String])?[id] == "a.jpg", "\(json.out)")
        let list = try cli.run("vault", "list", "--vault", vault, "--key-file", key)
        #expect(list.status == 1 && list.out.contains(id) && !list.out.contains(secondID) && list.err.contains("tampered record") && list.err.contains(secondID), "\(list)")
    }
}

/// `memora vault add --stdin`: a photo piped in is encrypted as it arrives.
@Suite("memora vault add --stdin, watched")
struct VaultCaptureCLITests {
    /// 32 bytes that begin every 64 KiB of the piped plaintext: any file holding plaintext shows one.
    static let marker = Array("MEMORA-PLAINTEXT-MARKER-7f3a9c2e".utf8)

    /// Pipes `megabytes` MiB through a FIFO into `memora vault add --stdin` while another thread
    /// watches the vault and temporary folders; returns the child's outcome, the SHA-256 of what was
    /// piped, every file seen, and the files in which the marker was seen.
    static func capture(_ cli: CLI, vault: String, key: String, megabytes: Int, name: String)
        throws -> (outcome: ChildProcess.Outcome, peak: Int64, digest: [UInt8], seen: Set<String>, leaks: Set<String>) {
        let fifo = cli.folder + "/camera-\(name).fifo", temporary = cli.folder + "/tmp"
        try FileSystem.makeFolder(temporary)
        #expect(try ChildProcess.run("/usr/bin/mkfifo", [fifo]).status == 0)
        let digest = Locked<[UInt8]>([])
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            var hash = SHA256Digest()
            for index in 0..<megabytes {
                var chunk = [UInt8](repeating: 0, count: 1 << 20)
                for offset in stride(from: 0, to: chunk.count, by: 1 << 16) {
                    chunk.replaceSubrange(offset..<offset + marker.count, with: marker)
                    for position in offset + marker.count..<offset + (1 << 16) { chunk[position] = UInt8(truncatingIfNeeded: position &* 7 &+ index) }
                }
                hash.update(chunk)
                handle.write(Data(chunk))
            }
            handle.closeFile()
            let result = hash.finalize()
            digest.withLock { $0 = result }
        }
        let done = Locked(false), seen = Locked(Set<String>()), leaks = Locked(Set<String>()), peak = Locked<Int64>(0)
        let watcher = Thread {
            var child: String?
            while !done.withLock({ $0 }) {
                // The child's own peak (VmHWM, its memory since exec): wait4's ru_maxrss also counts
                // the memory of the process that spawned it, before the exec (this test runner's).
                if child == nil {
                    child = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.first { entry in
                        entry.allSatisfy(\.isNumber)
                            && ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline"))).map { String(decoding: $0, as: UTF8.self) }?
                                .contains(vault + "\u{0}--key-file\u{0}" + key + "\u{0}--stdin\u{0}" + name) ?? false)
                    }
                }
                if let child, let status = try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8),
                   let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                   let kilobytes = Int64(line.split(separator: " ").dropFirst().first ?? "") {
                    peak.withLock { $0 = max($0, kilobytes * 1024) }
                }
                for root in [vault, temporary] {
                    // Hidden files too: temporary files are named `.NAME.memora-XXXXXX`.
                    for relative in FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [] {
                        let path = root + "/" + relative
                        guard FileSystem.statusIfPresent(of: path, followingLinks: false)?.kind == .regular else { continue }
                        seen.withLock { _ = $0.insert(path) }
                        guard let handle = try? SystemFile(path), let size = try? handle.size() else { continue }
                        for start in [Int64(0), max(0, size - (1 << 20))] {
                            let bytes = (try? handle.read(1 << 20, at: start)) ?? []
                            if bytes.count >= marker.count, (0...(bytes.count - marker.count)).contains(where: { bytes[$0] == marker[0] && Array(bytes[$0..<$0 + marker.count]) == marker }) {
                                leaks.withLock { _ = $0.insert(path) }
                            }
                        }
                    }
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        writer.start()
        watcher.start()
        defer { done.withLock { $0 = true } }
        let outcome = try ChildProcess.run(
            cli.executable, ["vault", "add", "--vault", vault, "--key-file", key, "--stdin", name],
            environment: ["XDG_CONFIG_HOME": cli.folder + "/config", "XDG_DATA_HOME": cli.folder + "/data", "TMPDIR": temporary],
            inputPath: fifo, outputPath: cli.folder + "/.stdout", errorPath: cli.folder + "/.stderr")
        done.withLock { $0 = true }
        while writer.isExecuting || watcher.isExecuting { Thread.sleep(forTimeInterval: 0.01) }
        return (outcome, peak.withLock { $0 }, digest.withLock { $0 }, seen.withLock { $0 }, leaks.withLock { $0 })
    }

    @Test("200 MiB piped in: no file but the vault's encrypted ones ever appears, none holds plaintext, memory stays flat, the photo exports whole")
    func pipedCapture() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        let small = try Self.capture(cli, vault: vault, key: key, megabytes: 48, name: "small.raw")
        let large = try Self.capture(cli, vault: vault, key: key, megabytes: 200, name: "large.raw")
        #expect(small.outcome.status == 0 && large.outcome.status == 0, "\((try? SystemFile(cli.folder + "/.stderr").readAll()).map { String(decoding: $0, as: UTF8.self) } ?? "")")
        #expect(large.leaks.isEmpty && small.leaks.isEmpty, "plaintext seen in \(large.leaks.union(small.leaks))")
        let allowed = { (path: String) -> Bool in
            let name = SystemPath.fileName(of: path)
            return path.hasPrefix(vault + "/") && (name.hasPrefix("vault.sqlite") || name == "vault.lock" || name.hasSuffix(".encrypted")
                || name.contains(".encrypted.memora-") || name.contains(".spool.memora-"))
        }
        #expect(large.seen.union(small.seen).filter { !allowed($0) }.isEmpty, "unexpected files: \(large.seen.union(small.seen).filter { !allowed($0) })")
        #expect(large.seen.contains { $0.contains(".spool.memora-") }, "the watcher saw the spool (it watched while the photo arrived)")
        // Flat: four times the photo, not four times the memory (both are larger than the 32 MiB kept in memory).
        #expect(small.peak > 0 && large.peak > 0, "the watcher read the child's peak")
        #expect(large.peak - small.peak < 16 << 20, "peak \(small.peak >> 20) MiB for 48 MiB, \(large.peak >> 20) MiB for 200 MiB")
        #expect(large.peak < 160 << 20, "peak \(large.peak >> 20) MiB")
        // The photo comes back whole.
        let listing = try cli.run("vault", "list", "--vault", vault, "--key-file", key, "--json")
        let photos = try JSONSerialization.jsonObject(with: Data(listing.out.utf8)) as? [[String: Any]] ?? []
        let id = try #require(photos.first { $0["filename"] as? String == "large.raw" }?["id"] as? String)
        #expect(try cli.run("vault", "export", "--vault", vault, "--key-file", key, id, "--output", cli.folder + "/large.out").status == 0)
        #expect(try SHA256Digest.hash(contentsOf: cli.folder + "/large.out") == large.digest)
        try? FileSystem.remove(cli.folder + "/large.out")
    }
}
