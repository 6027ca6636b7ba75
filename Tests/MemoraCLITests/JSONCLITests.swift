import Foundation
import MemoraSystem
import MetadataKit
import Testing

/// One JSON style across every command: snake_case keys (as `prefs set` takes them), ISO 8601
/// instants, a photo's date with its own offset; `caption --json` gives each photo's outcome.
@Suite("memora JSON, end to end")
struct JSONCLITests {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test("prefs show --json uses the keys prefs set takes; instants are ISO 8601")
    func preferences() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let db = cli.folder + "/memora.sqlite"
        #expect(try cli.run("prefs", "set", "--db", db, "ai_mode", "gemini").status == 0)
        let shown = try Self.object(try cli.run("prefs", "show", "--db", db, "--json").out)
        #expect(shown["ai_mode"] as? String == "gemini" && shown["aiMode"] == nil)
        #expect(Set(shown.keys).isSuperset(of: ["background_enabled", "auto_process_new", "process_existing", "wifi_only", "charging_only"]))
        let updated = try #require(shown["updated_at"] as? String)
        #expect(ISO8601DateFormatter().date(from: updated) != nil, "\(updated)")
    }

    @Test("a photo's date taken is printed with the photo's own offset, not converted to UTC (exiftool sets it)")
    func dateWithOffset() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("a.jpg")
        let tagged = try ChildProcess.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2019:07:14 10:00:00",
                                                                 "-OffsetTimeOriginal=+02:00", photo])
        try #require(tagged.status == 0)
        let read = try cli.run("metadata", "read", "--json", photo)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(read.out.utf8)) as? [[String: Any]])
        let metadata = try #require(entries.first?["metadata"] as? [String: Any])
        let taken = try #require(metadata["date_taken"] as? [String: Any])
        #expect(taken["date"] as? String == "2019-07-14T10:00:00+02:00" && taken["utc_offset_seconds"] as? Int == 7200)
    }

    @Test("caption --json gives each photo's outcome, caption and model; history --json has ISO 8601 times")
    func captionResults() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let photo = try cli.photo("photos/a.jpg")
        try CaptionWriter.write(CaptionUpdate(caption: "Lake Annecy."), to: try cli.photo("photos/b.jpg", seed: 2))
        let db = cli.folder + "/memora.sqlite"
        let run = try cli.run("caption", "--now", "--fallback", "basic", "--json", "--db", db, cli.folder + "/photos")
        #expect(run.status == 0, "\(run.err)")
        let report = try Self.object(run.out)
        #expect(report["ignored_constraints"] as? Bool == true)
        let photos = try #require(report["photos"] as? [[String: Any]])
        let captioned = try #require(photos.first { $0["path"] as? String == photo })
        #expect(captioned["outcome"] as? String == "captioned" && captioned["model"] as? String == "basic:basic-description")
        #expect(captioned["caption"] as? String == (try MetadataReader.read(contentsOf: photo).captions.caption))
        let skipped = try #require(photos.first { $0["path"] as? String != photo })
        #expect(skipped["outcome"] as? String == "skipped" && (skipped["reason"] as? String)?.contains("did not write") == true)

        let history = try Self.object(try cli.run("history", "--db", db, "--json", photo).out)
        let entries = try #require(history["entries"] as? [[String: Any]])
        let created = try #require(entries.first?["created_at"] as? String)
        #expect(ISO8601DateFormatter().date(from: created) != nil, "\(created)")
    }

    @Test("--db with a bare file name works in index, caption, queue and collage (it is in the current folder)")
    func bareDatabaseName() throws {
        let cli = try CLI()
        defer { cli.remove() }
        _ = try cli.photo("photos/a.jpg")
        let memora = cli.executable
        let script = """
            cd '\(cli.folder)' && '\(memora)' index --db index.sqlite photos && '\(memora)' caption --now --fallback basic --db memora.sqlite photos \
            && '\(memora)' queue status --db memora.sqlite && '\(memora)' collage --db index.sqlite --near 45.76,4.84 --out c.jpg; echo "status $?"
            """
        let result = try cli.run(executable: "/bin/sh", ["-c", script])
        #expect(FileSystem.exists(cli.folder + "/index.sqlite") && FileSystem.exists(cli.folder + "/memora.sqlite"), "\(result)")
        #expect(result.out.contains("completed: 1"), "\(result)")
        #expect(!result.err.contains("NSCocoaErrorDomain") && !result.err.contains("Foundation"), "\(result.err)")
    }
}
