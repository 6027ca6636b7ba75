import Foundation
import MemoraCore
import MemoraSystem
import MetadataKit
import Testing

/// Folders, -r, --ext and `-` (paths on standard input) for metadata read/write/strip-location and vault add.
@Suite("memora file selection, end to end")
struct FileSelectionCLITests {
    @Test("a folder's photos (not its text files, not its subfolders without -r), -r, --ext, and paths from standard input")
    func metadataOnFolders() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let top = try cli.photo("photos/top.jpg")
        let nested = try cli.photo("photos/2019/nested.jpg", seed: 2)
        try AtomicFileWriter.write(Array("notes".utf8), to: cli.folder + "/photos/notes.txt")
        let folder = cli.folder + "/photos"

        let flat = try cli.run("metadata", "write", "--caption", "Flat.", folder)
        #expect(flat.status == 0, "\(flat)")
        #expect(try MetadataReader.read(contentsOf: top).captions.caption == "Flat.")
        #expect(try MetadataReader.read(contentsOf: nested).captions.caption == nil, "subfolders need -r")

        let deep = try cli.run("metadata", "write", "--caption", "Deep.", "-r", folder)
        #expect(deep.status == 0 && deep.out.contains(nested) && !deep.out.contains("notes.txt"), "\(deep)")
        #expect(try MetadataReader.read(contentsOf: nested).captions.caption == "Deep.")

        let none = try cli.run("metadata", "read", "--ext", "png", "-r", folder)
        #expect(none.status == 64 && none.err.contains("no photos found"), "\(none)")

        let listed = try cli.run(executable: cli.executable, ["metadata", "read", "-"], input: nested + "\n")
        #expect(listed.status == 0 && listed.out.hasPrefix(nested + ":") && !listed.out.contains(top), "\(listed)")
    }

    @Test("a file name that is not UTF-8 (Latin-1 caf\\xE9.jpg) is captioned, read and listed: its bytes reach the file, and it is shown escaped")
    func latin1Name() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let made = try cli.photo("made.jpg")
        let latin = SystemPath.join(cli.folder, SystemPath.string(fromBytes: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)))
        try FileSystem.rename(made, to: latin)
        let captioned = try cli.run("caption", "--fallback", "basic", latin)
        #expect(captioned.status == 0 && captioned.out.contains("Captioned 1 photo"), "\(captioned)")
        let written = try cli.run("metadata", "write", latin, "--caption", "A quiet street")
        #expect(written.status == 0 && written.out.contains("caf\\xE9.jpg"), "\(written)")
        let listed = try cli.run("metadata", "read", cli.folder)
        #expect(listed.status == 0 && listed.out.contains("caf\\xE9.jpg"), "\(listed)")
        // Only the one file: nothing was made under a name with U+FFFD.
        #expect(try FileSystem.entries(of: cli.folder).filter { !$0.name.hasPrefix(".") && $0.kind != .directory }.map(\.name) == [SystemPath.fileName(of: latin)])
    }

    @Test("vault add takes a folder (it was refused)")
    func vaultAddFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        _ = try cli.photo("photos/a.jpg")
        _ = try cli.photo("photos/b.jpg", seed: 2)
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        let added = try cli.run("vault", "add", "--vault", vault, "--key-file", key, "--json", cli.folder + "/photos")
        #expect(added.status == 0, "\(added)")
        #expect((try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [[String: Any]])?.count == 2)
    }

    @Test("vault add --remove-originals on a folder: a photo captured earlier with --stdin leaves too (its copy read back), a text file named .jpg is named and counted as skipped")
    func vaultMoveFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let first = try cli.photo("photos/a.jpg")
        _ = try cli.photo("photos/b.jpg", seed: 2)
        try AtomicFileWriter.write(Array("shopping list".utf8), to: cli.folder + "/photos/notes.jpg")
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        let captured = try cli.run(executable: cli.executable, ["vault", "add", "--vault", vault, "--key-file", key, "--stdin", "captured.jpg"],
                                   inputBytes: try SystemFile(first).readAll())
        #expect(captured.status == 0, "\(captured)")

        let moved = try cli.run("vault", "add", "--remove-originals", "--yes", "--vault", vault, "--key-file", key, cli.folder + "/photos")
        #expect(moved.status == 0, "\(moved)")
        #expect(moved.err.contains("notes.jpg: skipped: not a photo"), "\(moved.err)")
        #expect(moved.out.contains("removed 2 of 2 originals") && moved.out.contains("1 file skipped: not a photo"), "\(moved.out)")
        #expect(try FileSystem.entries(of: cli.folder + "/photos").map(\.name) == ["notes.jpg"])
    }
}

/// "Did you mean" for mistyped commands, and the completion scripts `make install` puts in place.
@Suite("memora helps with typos, end to end")
struct TypoCLITests {
    @Test("a mistyped command or subcommand gets the nearest name (exit 64); a command's own arguments are not mistaken for one")
    func didYouMean() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let top = try cli.run("captoin", "photos")
        #expect(top.status == 64 && top.err.contains("Did you mean 'caption'?"), "\(top)")
        let nested = try cli.run("vault", "ad", "x.jpg")
        #expect(nested.status == 64 && nested.err.contains("Did you mean 'add'?") && nested.err.contains("rotate-key"), "\(nested)")
        let far = try cli.run("xyzzy")
        #expect(far.status == 64 && !far.err.contains("Did you mean") && far.err.contains("caption, queue"), "\(far)")
        let photo = try cli.photo("a.jpg")
        #expect(try cli.run("metadata", "read", photo).status == 0)
        #expect(try cli.run("index", "--db", cli.folder + "/index.sqlite", cli.folder).status == 0, "a default subcommand's argument")
        let bash = try cli.run("--generate-completion-script", "bash")
        #expect(bash.status == 0 && bash.out.contains("caption") && bash.out.contains("strip-location"))
    }
}

/// --dry-run says what would be done and writes nothing; --quiet prints only errors.
@Suite("memora --dry-run and --quiet, end to end")
struct DryRunCLITests {
    @Test("caption, metadata write and strip-location with --dry-run leave every byte and the database's queue as they were")
    func dryRuns() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let fresh = try cli.photo("photos/fresh.jpg")
        let captioned = try cli.photo("photos/captioned.jpg", seed: 2)
        try CaptionWriter.write(CaptionUpdate(caption: "Lake Annecy."), to: captioned)
        let before = try [fresh, captioned].map { try SystemFile($0).readAll() }
        let db = cli.folder + "/memora.sqlite"

        let plan = try cli.run("caption", "--dry-run", "--fallback", "basic", "--db", db, cli.folder + "/photos")
        #expect(plan.status == 0 && plan.out.contains("fresh.jpg: would be captioned (basic:basic-description)"), "\(plan)")
        #expect(plan.out.contains("captioned.jpg: left alone: the photo already has a caption that Memora did not write"), "\(plan)")
        let noModel = try cli.run("caption", "--dry-run", "--fallback", "none", "--db", db, cli.folder + "/photos")
        #expect(noModel.status == 2 && noModel.err.contains("no caption model can run"), "the run would fail, and so does its dry run")
        let queue = try cli.run("queue", "status", "--db", db, "--json")
        #expect(queue.out.contains("\"pending\" : 0") && queue.out.contains("\"completed\" : 0"), "nothing queued: \(queue.out)")

        let write = try cli.run("metadata", "write", "--dry-run", "--caption", "New.", fresh)
        #expect(write.status == 0 && write.out.contains("would write the caption"), "\(write)")
        let strip = try cli.run("metadata", "strip-location", "--dry-run", fresh)
        #expect(strip.status == 0 && strip.out.contains("holds no location"), "\(strip)")
        let refused = try cli.run("metadata", "write", "--dry-run", "--caption", "New.", cli.folder + "/missing.jpg")
        #expect(refused.status == 2, "a dry run fails where the write would: \(refused)")
        #expect(try [fresh, captioned].map { try SystemFile($0).readAll() } == before, "nothing written")

        let quiet = try cli.run("metadata", "write", "-q", "--caption", "Quiet.", fresh)
        #expect(quiet.status == 0 && quiet.out.isEmpty && quiet.err.isEmpty, "\(quiet)")
        #expect(try MetadataReader.read(contentsOf: fresh).captions.caption == "Quiet.")
    }

    @Test("edit, rollback, restore, index, collage and image thumbnail with --dry-run: the same checks and refusals, nothing written")
    func photoCommandDryRuns() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let db = cli.folder + "/memora.sqlite"
        let edited = try cli.run("edit", "--dry-run", "--db", db, photo, "--caption", "  Mine.  ")
        #expect(edited.status == 0 && edited.out.contains("would write the caption (5 characters)"), "\(edited)")
        #expect(try cli.run("edit", "--dry-run", "--db", db, photo, "--caption", " ").status == 2, "an empty caption is refused as the edit refuses it")
        let noHistory = try cli.run("rollback", "--dry-run", "--db", db, photo)
        #expect(noHistory.status == 2 && noHistory.err.contains("Memora never wrote to it"), "\(noHistory)")
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == nil, "the dry-run edit wrote nothing")

        #expect(try cli.run("edit", "-q", "--db", db, photo, "--caption", "One.").out.isEmpty, "--quiet")
        #expect(try cli.run("edit", "--db", db, photo, "--caption", "Two.").status == 0)
        let bytes = try SystemFile(photo).readAll()
        let back = try cli.run("rollback", "--dry-run", "--db", db, photo)
        #expect(back.status == 0 && back.out.contains("would undo operation #") && back.out.contains("back to level 1 of its history (caption would be \"One.\")"), "\(back)")
        let original = try cli.run("rollback", "--dry-run", "--to", "0", "--db", db, photo)
        #expect(original.status == 0 && original.out.contains("level 0 of 2 (no caption, as before Memora)"), "--to 0 asks nothing in a dry run: \(original)")
        #expect(try cli.run("rollback", "--dry-run", "--to", "7", "--db", db, photo).status == 2, "a level that does not exist is refused")
        let restore = try cli.run("metadata", "restore", "--dry-run", "--db", db, photo)
        #expect(restore.status == 0 && restore.out.contains("back to level 1") && restore.out.contains("nothing written"), "\(restore)")
        #expect(try SystemFile(photo).readAll() == bytes, "no rollback happened")

        let thumbnail = cli.folder + "/t.png"
        let planned = try cli.run("image", "thumbnail", "--dry-run", photo, "-o", thumbnail, "--size", "100")
        let made = try cli.run("image", "thumbnail", photo, "-o", cli.folder + "/real.png", "--size", "100")
        let size = try #require(made.out.split(separator: " ").dropFirst().first.map(String.init)?.dropLast())
        #expect(planned.status == 0 && planned.out.contains("would be a \(size) thumbnail"), "the dry run predicts the size: \(planned) vs \(made)")
        #expect(!FileSystem.exists(thumbnail))
        #expect(try cli.run("image", "thumbnail", "--dry-run", photo, "-o", cli.folder + "/real.png").status == 2, "an existing output is refused")

        let library = cli.folder + "/library", index = cli.folder + "/index.sqlite"
        _ = try cli.photo("library/x.jpg", seed: 5)
        _ = try cli.photo("library/y.jpg", seed: 6)
        let indexPlan = try cli.run("index", "--dry-run", "--db", index, library)
        #expect(indexPlan.status == 0 && indexPlan.out.contains("2 photos: 2 would be indexed"), "\(indexPlan)")
        #expect(!FileSystem.exists(index), "a dry run creates no index")
        let quietIndex = try cli.run("index", "-q", "--db", index, library)
        #expect(quietIndex.out.isEmpty && quietIndex.err.isEmpty, "--quiet: \(quietIndex)")
        try FileSystem.remove(library + "/y.jpg")
        let again = try cli.run("index", "--dry-run", "--db", index, library)
        #expect(again.out.contains("1 photos: 0 would be indexed, 1 unchanged, 0 moved, 1 removed from the index"), "\(again)")
        let collage = cli.folder + "/c.jpg"
        let collagePlan = try cli.run("collage", "--dry-run", "--db", index, "--year", "1999", "--out", collage)
        #expect(collagePlan.status == 2 && collagePlan.err.contains("no photo"), "refused as the collage would be: \(collagePlan)")
        #expect(!FileSystem.exists(collage))
    }

    @Test("vault add, export, share, import and remove with --dry-run: checked, looked up, nothing written")
    func vaultDryRuns() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("photos/a.jpg")
        let other = try cli.photo("photos/b.jpg", seed: 9)
        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        let options = ["--vault", vault, "--key-file", key]
        #expect(try cli.run(["vault", "init"] + options).status == 0)
        let added = try cli.run(["vault", "add", "--json"] + options + [photo])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [[String: Any]])?.first?["id"] as? String)

        let plan = try cli.run(["vault", "add", "--dry-run"] + options + [photo, other])
        #expect(plan.status == 0 && plan.out.contains("a.jpg: already in the vault as \(id)") && plan.out.contains("b.jpg: would be encrypted"), "\(plan)")
        let stripped = try cli.run(["vault", "add", "--dry-run", "--strip-location", "--json"] + options + [other])
        #expect(stripped.status == 0 && stripped.out.contains("\"already_stored_as\"") == false && stripped.out.contains("b.jpg"), "\(stripped)")
        let list = try cli.run(["vault", "list", "--json"] + options)
        #expect((try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [Any])?.count == 1, "nothing added: \(list.out)")

        let exported = cli.folder + "/out.jpg"
        let export = try cli.run(["vault", "export", "--dry-run"] + options + [id, "-o", exported])
        #expect(export.status == 0 && export.out.contains("would decrypt a.jpg") && !FileSystem.exists(exported), "\(export)")
        #expect(try cli.run(["vault", "export", "--dry-run"] + options + [id, "-o", vault + "/x.jpg"]).status == 2, "inside the vault: refused")
        #expect(try cli.run(["vault", "export", "--dry-run"] + options + ["no-such-id", "-o", exported]).status == 2)

        let environment = ["BUNDLE_PASS": "a long bundle passphrase"]
        let bundle = cli.folder + "/a.locaphoto"
        let share = try cli.run(executable: cli.executable, ["vault", "share", "--dry-run"] + options + [id, "--passphrase-env", "BUNDLE_PASS", "-o", bundle],
                                environment: environment)
        #expect(share.status == 0 && share.out.contains("would write a signed bundle") && !FileSystem.exists(bundle), "\(share)")
        #expect(try cli.run(executable: cli.executable, ["vault", "share"] + options + [id, "--passphrase-env", "BUNDLE_PASS", "-o", bundle],
                            environment: environment).status == 0)
        let importPlan = try cli.run(executable: cli.executable, ["vault", "import", "--dry-run"] + options + [bundle, "--passphrase-env", "BUNDLE_PASS"],
                                     environment: environment)
        #expect(importPlan.status == 0 && importPlan.out.contains("already in the vault as \(id)"), "\(importPlan)")
        let wrong = try cli.run(executable: cli.executable, ["vault", "import", "--dry-run"] + options + [bundle, "--passphrase-env", "BUNDLE_PASS"],
                                environment: ["BUNDLE_PASS": "not the passphrase"])
        #expect(wrong.status == 2, "the bundle is verified in a dry run: \(wrong)")

        let remove = try cli.run(["vault", "remove", "--dry-run"] + options + [id])
        #expect(remove.status == 0 && remove.out.contains("would remove \(id)"), "no question in a dry run: \(remove)")
        let quiet = try cli.run(["vault", "add", "-q"] + options + [other])
        #expect(quiet.status == 0 && quiet.out.isEmpty && quiet.err.isEmpty, "no result and no progress: \(quiet)")
        let after = try cli.run(["vault", "list", "--json"] + options)
        #expect((try JSONSerialization.jsonObject(with: Data(after.out.utf8)) as? [Any])?.count == 2, "a.jpg still there, b.jpg added: \(after.out)")
    }

    @Test("queue list, remove and clear: what is queued, a photo taken out, the rest cleared; files never touched")
    func queueCommands() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let db = cli.folder + "/memora.sqlite"
        let a = try cli.photo("photos/a.jpg"), b = try cli.photo("photos/b.jpg")
        let before = try SystemFile(a).readAll()
        // Queued by a run that could not caption (no model, no fallback): nothing is queued.
        let refused = try cli.run("caption", "--fallback", "none", "--db", db, "--now", cli.folder + "/photos")
        #expect(refused.status != 0)
        #expect(try cli.run("queue", "list", "--db", db).out.isEmpty, "a run that cannot start queues nothing")
        // Queued by hand through a run that is allowed the basic description but stops at once: list shows both.
        let database = try CaptionDatabase(path: db)
        _ = try GalleryScanner(database: database).scan([cli.folder + "/photos"], explicit: true, force: false)
        let list = try cli.run("queue", "list", "--db", db)
        #expect(list.status == 0 && list.out.split(separator: "\n").count == 2 && list.out.contains("pending  "), "\(list)")
        let json = try cli.run("queue", "list", "--db", db, "--json")
        #expect((try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [Any])?.count == 2)
        let remove = try cli.run("queue", "remove", "--db", db, a)
        #expect(remove.status == 0 && remove.out.contains("1 photo(s) left the queue"), "\(remove)")
        #expect(try cli.run("queue", "remove", "--db", db, a).status != 0, "not queued any more")
        #expect(try cli.run("queue", "list", "--db", db, "--status", "pending").out.contains(SystemPath.fileName(of: b)))
        #expect(try cli.run("queue", "list", "--db", db, "--status", "nope").status != 0, "an unknown status is refused")
        let clear = try cli.run("queue", "clear", "--db", db)
        #expect(clear.status == 0 && clear.out.contains("1 photo(s) left the queue"), "\(clear)")
        #expect(try cli.run("queue", "list", "--db", db).out.isEmpty)
        #expect(try SystemFile(a).readAll() == before, "the file is not touched")
    }

    @Test("prefs set, queue retry-failed, vault init and rotate-key, people hide with --dry-run: checked, nothing written")
    func settingsDryRuns() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let db = cli.folder + "/memora.sqlite"
        let set = try cli.run("prefs", "set", "--dry-run", "--db", db, "ai_mode", "gemini")
        #expect(set.status == 0 && set.out.contains("would set ai_mode = gemini"), "\(set)")
        #expect(try cli.run("prefs", "show", "--db", db).out.contains("ai_mode = on-device"), "not written")
        #expect(try cli.run("prefs", "set", "--dry-run", "--db", db, "wifi_only", "maybe").status == 2, "a bad value is refused as set refuses it")
        let retry = try cli.run("queue", "retry-failed", "--dry-run", "--db", db)
        #expect(retry.status == 0 && retry.out.contains("0 failed photo(s) would go back"), "\(retry)")

        let vault = cli.folder + "/vault", key = cli.folder + "/vault.key"
        let plan = try cli.run("vault", "init", "--dry-run", "--vault", vault, "--key-file", key)
        #expect(plan.status == 0 && plan.out.contains("would create the vault") && !FileSystem.exists(vault) && !FileSystem.exists(key), "\(plan)")
        _ = try cli.photo("photos/a.jpg")
        #expect(try cli.run("vault", "init", "--dry-run", "--vault", cli.folder + "/photos", "--key-file", key).status == 2, "a folder of photos is refused")
        #expect(try cli.run("vault", "init", "--vault", vault, "--key-file", key).status == 0)
        let keyBytes = try SystemFile(key).readAll()
        let rotate = try cli.run("vault", "rotate-key", "--dry-run", "--vault", vault, "--key-file", key)
        let keyAfter = try SystemFile(key).readAll()
        #expect(rotate.status == 0 && rotate.out.contains("re-wrap 0 photo keys") && keyAfter == keyBytes, "\(rotate)")
        #expect(try cli.run("vault", "init", "--dry-run", "--vault", vault, "--key-file", key).status == 2, "a vault there already is refused")

        #expect(try cli.run("people", "hide", "--dry-run", "--db", cli.folder + "/index.sqlite", "3").status == 2, "no index: refused")
    }
}
