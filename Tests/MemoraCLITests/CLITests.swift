import Foundation
import TestSupport
import ImageKit
import MemoraSystem
import MetadataKit
import Testing

/// Runs the built `memora` (beside the test bundle) with its own XDG folders inside a temporary folder.
struct CLI {
    let folder: String
    let executable: String

    init() throws {
        folder = try temporaryFolder("memora-cli")
        executable = SystemPath.join(SystemPath.folder(of: FileSystem.absolutePath(CommandLine.arguments[0])), "memora")
    }

    func remove() { try? FileSystem.removeTree(folder) }

    /// The exit status, standard output and standard error of `memora arguments`.
    func run(_ arguments: String...) throws -> (status: Int32, out: String, err: String) { try run(arguments) }

    /// The exit status, standard output and standard error of `memora arguments`.
    func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) { try run(executable: executable, arguments) }

    /// The exit status, standard output and standard error of `program arguments`, in memora's
    /// environment, with `input` (or `inputBytes`) on standard input.
    func run(executable program: String, _ arguments: [String], input: String = "", inputBytes: [UInt8]? = nil,
             environment extra: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        let out = folder + "/.stdout", err = folder + "/.stderr", inputPath = folder + "/.stdin"
        try AtomicFileWriter.write(inputBytes ?? Array(input.utf8), to: inputPath)
        var environment = [
            "XDG_CONFIG_HOME": folder + "/config", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
            "MEMORA_OLLAMA_URL": "http://127.0.0.1:9",  // nothing listens: no model, never the network
        ]
        environment.merge(extra) { $1 }
        let outcome = try ChildProcess.run(program, arguments, environment: environment, inputPath: inputPath, outputPath: out, errorPath: err)
        let text = { (path: String) in String(decoding: (try? SystemFile(path).readAll()) ?? [], as: UTF8.self) }
        return (outcome.status, text(out), text(err))
    }

    /// `memora arguments` on a pseudo-terminal (util-linux `script`), with `input` typed at it;
    /// the terminal's output (standard output and error together) comes back as `out`.
    func runOnTerminal(_ arguments: [String], input: String) throws -> (status: Int32, out: String, err: String) {
        let command = ([executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try run(executable: "/usr/bin/script", ["-qec", command, "/dev/null"], input: input)
    }

    /// A real JPEG from the real encoder.
    func photo(_ name: String, seed: UInt64 = 1) throws -> String {
        let path = folder + "/" + name
        try FileSystem.makeFolder(SystemPath.folder(of: path))
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: seed), to: path, as: .jpeg())
        return path
    }
}

@Suite("memora, end to end")
struct CLITests {
    @Test("memora and memora-server say one version, the health route's")
    func oneVersion() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let memora = try cli.run("--version")
        let server = try cli.run(executable: SystemPath.join(SystemPath.folder(of: cli.executable), "memora-server"), ["--version"])
        #expect(memora.status == 0 && server.status == 0 && memora.out == server.out && !memora.out.isEmpty, "\(memora) \(server)")
    }

    @Test("a network command leaves nothing in the data folder but Memora's own (no empty cookie folder named after the build folder)")
    func noStrayFolders() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let sync = try cli.run("sync", "--server", "http://127.0.0.1:9", "--join", "abc")
        #expect(sync.status != 0 && sync.err.contains("cannot reach"), "\(sync)")
        let hub = try cli.run("hub", "pair", #"{"authToken":"x","port":9,"serverIP":"127.0.0.1"}"#)
        #expect(hub.status != 0, "\(hub)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.folder + "/data") == ["memora"])
    }

    @Test("a file name with a newline, an escape sequence or a bidi override is printed escaped, on stdout and in errors; JSON keeps it exact")
    func controlCharactersEscaped() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let name = "evil\nError: fake\u{1B}[31m\u{202E}gpj.jpg"
        let photo = try cli.photo(name)
        let info = try cli.run("image", "info", photo)
        #expect(info.status == 0)
        #expect(info.out.contains("evil\\nError: fake\\u{1B}[31m\\u{202E}gpj.jpg: JPEG 320x240"), "\(info.out)")
        #expect(!info.out.contains("\u{1B}") && !info.out.contains("\u{202E}") && info.out.split(separator: "\n").count == 1)
        let missing = try cli.run("metadata", "read", cli.folder + "/gone\n\u{1B}[2J.jpg")
        #expect(missing.status == 2, "nothing done")
        #expect(!missing.err.contains("\u{1B}") && missing.err.contains("gone\\n\\u{1B}[2J.jpg"), "\(missing.err)")
        let failed = try cli.run("metadata", "write", "--caption", "x", cli.folder + "/gone\r.jpg")
        #expect(failed.status == 2 && !failed.err.contains("\r") && failed.err.contains("gone\\r.jpg"), "\(failed.err)")
        let json = try cli.run("image", "info", photo, "--json")
        let entries = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]]
        #expect(entries?.first?["path"] as? String == photo, "JSON carries the name exactly, as data")
    }

    @Test("a caption that is not valid UTF-8 (typed in Latin-1) is refused with exit 64 and the photo is untouched")
    func invalidUTF8Caption() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let before = try SystemFile(photo).readAll()
        for form in ["--caption \"$(printf 'Caf\\351')\"", "--caption=\"$(printf 'Caf\\351')\"", "--caption ok --alt-text \"$(printf '\\351t\\351')\""] {
            let refused = try cli.run(executable: "/bin/sh", ["-c", "exec \"$0\" metadata write \(form) \"$1\"", cli.executable, photo])
            #expect(refused.status == 64, "\(form): \(refused.err)")
            #expect(refused.err.contains("not valid UTF-8"), "\(refused.err)")
            #expect(try SystemFile(photo).readAll() == before)
        }
        let edit = try cli.run(executable: "/bin/sh", ["-c", "exec \"$0\" edit \"$1\" --caption \"$(printf 'Caf\\351')\"", cli.executable, photo])
        #expect(edit.status == 64 && edit.err.contains("not valid UTF-8"))
        let valid = try cli.run("metadata", "write", "--caption", "Café \u{FFFD} as typed", photo)
        #expect(valid.status == 0, "a real U+FFFD typed as UTF-8 is text like any other: \(valid.err)")
    }

    @Test("image info prints JSON for a photo; a missing file fails with exit 2 (nothing done) and names the file once, without a Foundation dump")
    func imageInfo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let ok = try cli.run("image", "info", photo, "--json")
        #expect(ok.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ok.out.utf8)) as? [[String: Any]])
        let info = try #require(json.first?["info"] as? [String: Any])
        #expect(info["width"] as? Int == 320 && info["height"] as? Int == 240 && info["format"] as? String == "jpeg")
        let missing = try cli.run("image", "info", cli.folder + "/missing.jpg")
        #expect(missing.status == 2, "nothing done")
        #expect(missing.err.components(separatedBy: cli.folder + "/missing.jpg").count == 2, "the path appears once: \(missing.err)")
        #expect(!missing.err.contains("NSCocoaErrorDomain") && !missing.err.contains("Error Domain"))
    }

    @Test("metadata write, read and restore: the caption lands, and restore gives back the original bytes")
    func metadataRoundTrip() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("b.jpg")
        let original = try SystemFile(photo).readAll()
        let written = try cli.run("metadata", "write", "--caption", "Zoë at the harbour", photo)
        #expect(written.status == 0 && written.out.contains(photo))
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Zoë at the harbour")
        let read = try cli.run("metadata", "read", photo, "--json")
        #expect(read.status == 0 && read.out.contains("Zoë at the harbour"))
        #expect(try cli.run("metadata", "restore", photo).status == 0)
        #expect(try SystemFile(photo).readAll() == original)
    }

    @Test("caption: a bad endpoint is a usage error (exit 64) and a missing path fails before anything is queued")
    func captionRefusals() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let bad = try cli.run("caption", "--endpoint", "ftp://example.org", cli.folder)
        #expect(bad.status == 64 && bad.err.contains("http(s) URL"))
        let badMode = try cli.run("caption", "--mode", "bogus", cli.folder)
        #expect(badMode.status == 64 && badMode.err.contains("on-device"))
        let missing = try cli.run("caption", "--db", cli.folder + "/memora.sqlite", cli.folder + "/nowhere")
        #expect(missing.status != 0 && missing.err.contains("no such file or folder"))
    }

    @Test("vault: init, add with JSON, export byte for byte, verify")
    func vault() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("c.jpg", seed: 4)
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        #expect(try FileSystem.status(of: key).permissions == 0o600)
        let added = try cli.run("vault", "add", "--vault", vault, "--key-file", key, photo, "--json")
        #expect(added.status == 0)
        let records = try #require(try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [[String: Any]])
        let id = try #require(records.first?["id"] as? String)
        #expect(records.first?["thumbnail"] as? Bool == true)
        let exported = cli.folder + "/exported.jpg"
        #expect(try cli.run("vault", "export", "--vault", vault, "--key-file", key, id, "--output", exported).status == 0)
        #expect(try SystemFile(exported).readAll() == SystemFile(photo).readAll())
        #expect(try cli.run("vault", "verify", "--vault", vault, "--key-file", key).status == 0)
    }

    @Test("index build into a database named without a folder, run from another folder")
    func indexBuild() throws {
        let cli = try CLI()
        defer { cli.remove() }
        _ = try cli.photo("library/one.jpg", seed: 2)
        _ = try cli.photo("library/two.jpg", seed: 3)
        let built = try cli.run("index", "build", "--db", cli.folder + "/index.sqlite", cli.folder + "/library", "--json")
        #expect(built.status == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(built.out.utf8)) as? [String: Any]
        #expect(summary?["total"] as? Int == 2 && summary?["indexed"] as? Int == 2 && summary?["failed"] as? Int == 0)
        #expect(FileSystem.exists(cli.folder + "/index.sqlite"))
    }

    @Test("index reports each folder and file it cannot read with the reason, counts them, and keeps the photos indexed under them")
    func indexUnreadable() throws {
        let cli = try CLI()
        defer {
            for path in [cli.folder + "/library/locked", cli.folder + "/library/secret.jpg"] { try? FileSystem.setPermissions(path, 0o755) }
            cli.remove()
        }
        // Permissions do not stop root: when the tests run as root, `memora` runs as nobody.
        let probe = cli.folder + "/probe"
        try AtomicFileWriter.write([], to: probe)
        try FileSystem.setPermissions(probe, 0)
        let privileged = (try? SystemFile(probe)) != nil
        let memora = cli.folder + "/memora"
        if privileged {
            // Copied by cp, not by this process: a descriptor open for writing here could be inherited by a
            // child another test is spawning at that moment, and the copy could then not be run (ETXTBSY).
            #expect(try ChildProcess.run("/bin/cp", [cli.executable, memora]).status == 0)
            try FileSystem.setPermissions(memora, 0o755)
        }
        func index(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
            guard privileged else { return try cli.run(arguments) }
            return try cli.run(executable: "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", memora] + arguments)
        }
        _ = try cli.photo("library/ok/one.jpg", seed: 2)
        _ = try cli.photo("library/locked/two.jpg", seed: 3)
        for folder in [cli.folder, cli.folder + "/library", cli.folder + "/library/ok", cli.folder + "/library/locked"] {
            try FileSystem.setPermissions(folder, 0o777)
        }
        let database = cli.folder + "/index.sqlite"
        let first = try index("index", "build", "--db", database, cli.folder + "/library", "--json")
        #expect(first.status == 0, "\(first.err)")

        _ = try cli.photo("library/secret.jpg", seed: 4)
        try FileSystem.setPermissions(cli.folder + "/library/secret.jpg", 0)
        try FileSystem.setPermissions(cli.folder + "/library/locked", 0)
        let second = try index("index", "build", "--db", database, cli.folder + "/library", "--json")
        let summary = try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as? [String: Any]
        let unreadable = summary?["unreadable"] as? [[String: String]] ?? []
        #expect(unreadable.map { $0["path"] ?? "" } == [cli.folder + "/library/locked", cli.folder + "/library/secret.jpg"])
        #expect(unreadable.allSatisfy { $0["reason"]?.contains("permission denied") == true }, "\(unreadable)")
        #expect(summary?["failed"] as? Int == 2 && summary?["removed"] as? Int == 0, "\(second.out)")
        let text = try index("index", "build", "--db", database, cli.folder + "/library")
        #expect(text.out.contains("2 unreadable"), "\(text.out)")
        #expect(text.err.contains(cli.folder + "/library/secret.jpg: the file cannot be read: permission denied"), "\(text.err)")
        let stats = try index("index", "stats", "--db", database, "--json")
        let cache = try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any]
        #expect(cache?["photos"] as? Int == 2, "the photo under the folder that cannot be listed stays indexed")
    }

    @Test("one history for every write: two metadata writes are listed by history (JSON), rollback goes to any level, --to 0 gives back the original bytes, a level that does not exist fails naming the photo once")
    func historyOfEveryWrite() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("h.jpg", seed: 5)
        let db = cli.folder + "/memora.sqlite"
        let original = try SystemFile(photo).readAll()
        #expect(try cli.run("metadata", "write", "--db", db, "--caption", "First caption", photo).status == 0)
        let afterFirst = try SystemFile(photo).readAll()
        #expect(try cli.run("metadata", "write", "--db", db, "--caption", "Second caption", photo).status == 0)
        let history = try cli.run("history", "--db", db, photo, "--json")
        #expect(history.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(history.out.utf8)) as? [String: Any])
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(entries.map { $0["kind"] as? String } == ["metadata-write", "metadata-write"])
        #expect(entries.map { $0["caption"] as? String } == ["First caption", "Second caption"])
        #expect(report["current"] as? String == "Second caption")
        #expect(try cli.run("rollback", "--db", db, photo, "--to", "1").status == 0)
        #expect(try SystemFile(photo).readAll() == afterFirst, "level 1 is the photo right after entry 1, byte for byte")
        #expect(try cli.run("rollback", "--db", db, photo, "--to", "0", "--yes").status == 0)
        #expect(try SystemFile(photo).readAll() == original)
        let missing = try cli.run("rollback", "--db", db, photo, "--to", "42")
        #expect(missing.status != 0)
        #expect(missing.err.contains("42") && missing.err.components(separatedBy: "h.jpg").count == 2, "\(missing.err)")
        #expect(try SystemFile(photo).readAll() == original, "a refused rollback leaves the photo as it is")
    }
}
