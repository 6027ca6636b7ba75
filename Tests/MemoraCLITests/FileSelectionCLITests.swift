import Foundation
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
        let noModel = try cli.run("caption", "--dry-run", "--db", db, cli.folder + "/photos")
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
}
