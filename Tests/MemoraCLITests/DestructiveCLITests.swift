import Foundation
import MemoraSystem
import MetadataKit
import Testing

/// Destructive actions ask on a terminal and take --yes in scripts; vault init never takes over
/// a folder of the user's files and says where the key is; writes can keep modification times.
@Suite("memora asks before destroying, end to end")
struct DestructiveCLITests {
    @Test("rollback --to 0: refused without a terminal or --yes (64), a no on the terminal does nothing (2), a yes restores; restore says what it restored")
    func rollbackToOriginal() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let original = try SystemFile(photo).readAll()
        let db = cli.folder + "/memora.sqlite"
        #expect(try cli.run("edit", "--db", db, photo, "--caption", "Mine.").status == 0)
        let script = try cli.run("rollback", "--db", db, photo, "--to", "0")
        #expect(script.status == 64 && script.err.contains("--yes"), "\(script)")
        let declined = try cli.runOnTerminal(["rollback", "--db", db, photo, "--to", "0"], input: "n\n")
        #expect(declined.status == 2 && declined.out.contains("[y/N]"), "\(declined)")
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Mine.")
        let accepted = try cli.runOnTerminal(["rollback", "--db", db, photo, "--to", "0"], input: "y\n")
        #expect(accepted.status == 0 && accepted.out.contains("restored to level 0"), "\(accepted)")
        #expect(try SystemFile(photo).readAll() == original)
        let undone = try cli.run("metadata", "restore", "--db", db, photo)
        #expect(undone.status == 0 && undone.out.contains("caption now \"Mine.\""), "restore says what it restored: \(undone)")
    }

    @Test("vault remove asks (64 without a terminal or --yes); vault init refuses a folder with files and names the key file to back up")
    func vault() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photos = cli.folder + "/photos"
        _ = try cli.photo("photos/a.jpg")
        let refused = try cli.run("vault", "init", "--vault", photos, "--key-file", cli.folder + "/k.key")
        #expect(refused.status == 2 && refused.err.contains("not empty"), "\(refused)")
        #expect(try FileSystem.status(of: photos).permissions != 0o700, "the photo folder was not made private")
        #expect(!FileSystem.exists(photos + "/vault.sqlite"))

        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        let created = try cli.run("vault", "init", "--vault", vault, "--key-file", key)
        #expect(created.status == 0 && created.out.contains(key) && created.out.contains("Back up"), "\(created)")
        let added = try cli.run("vault", "add", "--vault", vault, "--key-file", key, "--json", photos + "/a.jpg")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        let script = try cli.run("vault", "remove", "--vault", vault, "--key-file", key, id)
        #expect(script.status == 64 && script.err.contains("--yes"))
        let declined = try cli.runOnTerminal(["vault", "remove", "--vault", vault, "--key-file", key, id], input: "n\n")
        #expect(declined.status == 2, "\(declined)")
        let removed = try cli.run("vault", "remove", "--vault", vault, "--key-file", key, "--yes", id)
        #expect(removed.status == 0 && removed.out.contains("removed \(id)"), "\(removed)")
    }

    @Test("a passphrase-protected key without MEMORA_PASSPHRASE and without a terminal: the message names the variable")
    func passphraseNamed() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        let created = try cli.runOnTerminal(["vault", "init", "--vault", vault, "--key-file", key], input: "correct horse\ncorrect horse\n")
        #expect(created.status == 0 && created.out.contains("protected by your passphrase"), "\(created)")
        let listed = try cli.run("vault", "list", "--vault", vault, "--key-file", key)
        #expect(listed.status != 0 && listed.err.contains("MEMORA_PASSPHRASE"), "\(listed)")
        let typed = try cli.runOnTerminal(["vault", "list", "--vault", vault, "--key-file", key], input: "correct horse\n")
        #expect(typed.status == 0, "\(typed)")
        let mismatch = try cli.runOnTerminal(["vault", "init", "--vault", cli.folder + "/other", "--key-file", cli.folder + "/other.key"],
                                             input: "one\ntwo\n")
        #expect(mismatch.status == 2 && mismatch.out.contains("differ") && !FileSystem.exists(cli.folder + "/other.key"), "\(mismatch)")
    }

    @Test("--keep-mtime on caption, edit and rollback keeps the photo's modification time")
    func keepModificationTime() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("photos/a.jpg")
        try #require(try ChildProcess.run("/usr/bin/touch", ["-d", "@1500000000", photo]).status == 0)
        let db = cli.folder + "/memora.sqlite"
        for arguments in [["caption", "--now", "--fallback", "basic", "--keep-mtime", "--db", db, photo],
                          ["edit", "--db", db, photo, "--caption", "Mine.", "--keep-mtime"],
                          ["rollback", "--db", db, photo, "--keep-mtime"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run)")
            #expect(try FileSystem.status(of: photo).modified.seconds == 1_500_000_000, "\(arguments[0])")
        }
        #expect(try cli.run("edit", "--db", db, photo, "--caption", "Changed.").status == 0)
        #expect(try FileSystem.status(of: photo).modified.seconds != 1_500_000_000, "without the flag the time moves")
    }
}

@Suite("memora metadata restore undoes operations, end to end")
struct OperationUndoCLITests {
    @Test("write on a folder, strip-location on the one photo with a location, restore: only that photo gets its location back, the captions stay; history lists the operations; --operation and a later change")
    func restoreUndoesTheLastOperation() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let db = cli.folder + "/memora.sqlite"
        let folder = cli.folder + "/photos"
        let photos = try ["a.jpg", "b.jpg", "c.jpg"].enumerated().map { index, name in try cli.photo("photos/" + name, seed: UInt64(index + 1)) }
        let located = photos[1]
        let tagged = try ChildProcess.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-GPSLatitude=48.85", "-GPSLatitudeRef=N",
                                                                 "-GPSLongitude=2.35", "-GPSLongitudeRef=E", located])
        try #require(tagged.status == 0, "exiftool sets the location")
        #expect(try cli.run("metadata", "write", "-r", folder, "--caption", "Our street", "--db", db).status == 0)
        let captioned = try photos.map { try SystemFile($0).readAll() }
        let strip = try cli.run("metadata", "strip-location", "-r", folder, "--db", db)
        #expect(strip.status == 0 && strip.out.contains("\(located)  (location removed: EXIF GPS)"), "\(strip)")
        #expect(try MetadataReader.read(contentsOf: located).gps == nil)

        let history = try cli.run("history", "--db", db)
        let lines = history.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("strip-location  1 photo") == true && lines.dropFirst().first?.contains("metadata-write  3 photos") == true, "\(history.out)")
        let writeOperation = try #require(lines.dropFirst().first.flatMap { Int($0.dropFirst().prefix { $0.isNumber }) })

        // The restore undoes the strip on the one photo it touched; the other two keep their captions, byte for byte.
        let restore = try cli.run("metadata", "restore", "-r", folder, "--db", db)
        #expect(restore.status == 0 && restore.out.contains("left 2 photos") && restore.out.contains("b.jpg: undid operation #"), "\(restore)")
        #expect(try MetadataReader.read(contentsOf: located).gps != nil, "the location is back")
        #expect(try SystemFile(located).readAll() == captioned[1], "back to the state the strip replaced")
        for index in [0, 2] { #expect(try SystemFile(photos[index]).readAll() == captioned[index], "\(photos[index]) untouched") }

        // The write, by number: the photo the restore changed since is reported and left; the others lose the caption.
        let undoWrite = try cli.run("metadata", "restore", "-r", folder, "--operation", String(writeOperation), "--db", db)
        #expect(undoWrite.status == 1 && undoWrite.err.contains("b.jpg: operation #\(writeOperation) wrote to it, but operation #"), "\(undoWrite)")
        #expect(try MetadataReader.read(contentsOf: photos[0]).captions.caption == nil && MetadataReader.read(contentsOf: located).captions.caption == "Our street")
        #expect(try cli.run("metadata", "restore", folder + "/a.jpg", "--operation", "999", "--db", db).status == 2, "an operation that wrote to none of them")
    }
}
