import Foundation
import MemoraSystem
import MetadataKit
import Testing

/// `memora caption` never writes a weak caption as if it were real, never replaces a caption it
/// did not write without asking, and says with its exit status what happened.
@Suite("memora caption, end to end")
struct CaptionCLITests {
    @Test("no model and --fallback none: exit 2, the fix named, nothing written; by default the on-device description: exit 0, said once on stderr, labelled, and a summary line")
    func noModel() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("photos/a.jpg")
        let original = try SystemFile(photo).readAll()
        let db = cli.folder + "/memora.sqlite"
        let refused = try cli.run("caption", "--now", "--fallback", "none", "--db", db, cli.folder + "/photos")
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.err.contains("no caption model can run") && refused.err.contains("ollama serve") && refused.err.contains("--fallback on-device"))
        #expect(try SystemFile(photo).readAll() == original)
        #expect(try cli.run("caption", "--now", "--fallback", "basic-ish", "--db", db, photo).status == 64, "an unknown fallback is a usage error")

        let basic = try cli.run("caption", "--now", "--db", db, cli.folder + "/photos")
        #expect(basic.status == 0, "\(basic)")
        #expect(basic.err.split(separator: "\n").last == "memora caption: 1 captioned, 0 left alone, 0 failed")
        #expect(basic.err.components(separatedBy: "on-device description").count - 1 == 1, "said once: \(basic.err)")
        #expect(!basic.out.contains("on-device description"), "on stderr, not mixed into the output")
        #expect(try MetadataReader.read(contentsOf: photo).captions.isBasicDescription)
        let history = try cli.run("history", "--db", db, photo)
        #expect(history.out.contains("basic:basic-description"))
    }

    @Test("a caption from before Memora: left alone with --force, replaced only with --replace-existing, which asks (a terminal) or takes --yes")
    func existingCaption() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("photos/a.jpg")
        try CaptionWriter.write(CaptionUpdate(caption: "Grandma's garden in June."), to: photo)
        let db = cli.folder + "/memora.sqlite"
        let forced = try cli.run("caption", "--now", "--fallback", "basic", "--force", "--db", db, photo)
        #expect(forced.status == 0 && forced.err.contains("1 left alone"), "\(forced)")
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandma's garden in June.")

        let script = try cli.run("caption", "--now", "--fallback", "basic", "--replace-existing", "--db", db, photo)
        #expect(script.status == 64 && script.err.contains("--yes"), "no terminal to ask on: \(script)")

        let declined = try cli.runOnTerminal(["caption", "--now", "--fallback", "basic", "--replace-existing", "--db", db, photo], input: "n\n")
        #expect(declined.status == 2 && declined.out.contains("[y/N]") && declined.out.contains("nothing done"), "\(declined)")
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandma's garden in June.")

        let accepted = try cli.runOnTerminal(["caption", "--now", "--fallback", "basic", "--replace-existing", "--db", db, photo], input: "y\n")
        #expect(accepted.status == 0, "\(accepted)")
        let captions = try MetadataReader.read(contentsOf: photo).captions
        #expect(captions.caption != "Grandma's garden in June." && captions.isBasicDescription)
        let rolledBack = try cli.run("rollback", "--db", db, photo, "--to", "0", "--yes")
        #expect(rolledBack.status == 0)
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandma's garden in June.", "the original stays in the history")

        // A rollback is a person's choice: even --replace-existing leaves it.
        let afterRollback = try cli.run("caption", "--now", "--fallback", "basic", "--replace-existing", "--yes", "--db", db, photo)
        #expect(afterRollback.status == 0 && afterRollback.err.hasSuffix("0 captioned, 1 left alone, 0 failed\n"), "\(afterRollback)")

        let other = try cli.photo("photos/b.jpg", seed: 2)
        try CaptionWriter.write(CaptionUpdate(caption: "Lake Annecy."), to: other)
        let yes = try cli.run("caption", "--now", "--fallback", "basic", "--replace-existing", "--yes", "--db", db, other)
        #expect(yes.status == 0 && yes.err.hasSuffix("1 captioned, 0 left alone, 0 failed\n"), "\(yes)")
    }

    @Test("exit 1 when some photos failed and others were done, 2 when every one failed")
    func partialFailure() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let good = try cli.photo("photos/good.jpg")
        // A JPEG cut short: queued (it starts like a JPEG), but no caption can be made or written.
        let broken = try cli.photo("photos/broken.jpg", seed: 2)
        try AtomicFileWriter.write(Array(try SystemFile(broken).readAll().prefix(600)), to: broken)
        let some = try cli.run("caption", "--now", "--fallback", "basic", "--db", cli.folder + "/memora.sqlite", cli.folder + "/photos")
        #expect(some.status == 1 && some.err.hasSuffix("1 captioned, 0 left alone, 1 failed\n"), "\(some)")
        #expect(try MetadataReader.read(contentsOf: good).captions.isBasicDescription)
        let none = try cli.run("caption", "--now", "--fallback", "basic", "--db", cli.folder + "/other.sqlite", broken)
        #expect(none.status == 2, "\(none)")
    }
}
