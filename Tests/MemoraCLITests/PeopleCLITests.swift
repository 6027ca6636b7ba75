import Foundation
import ImageKit
import MemoraSystem
import Testing

/// `memora people` on photos of a real face, found by `memora index` with the installed models.
@Suite("memora people, end to end")
struct PeopleCLITests {
    /// The installed models' folder (as `memora` finds it outside the tests' own XDG folders), if the models are there.
    static let models: String? = {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.local/share"
        let folder = environment["MEMORA_MODELS"].flatMap { $0.isEmpty ? nil : $0 } ?? data + "/memora/models"
        return FileSystem.exists(folder + "/fixtures/astronaut.png") ? folder : nil
    }()

    /// The people `memora people --json` lists, by number: faces and name.
    static func people(_ cli: CLI, _ db: String) throws -> [Int64: (faces: Int, name: String?)] {
        let list = try cli.run("people", "--db", db, "--json")
        let people = try #require(try JSONSerialization.jsonObject(with: Data(list.out.utf8)) as? [[String: Any]], "\(list)")
        return Dictionary(uniqueKeysWithValues: try people.map { person in
            (try #require((person["id"] as? NSNumber)?.int64Value), (try #require(person["face_count"] as? Int), person["name"] as? String))
        })
    }

    @Test("people split: a dry run writes nothing; the faces move to the person named, who keeps them when a photo is indexed again and through cluster --rebuild; refusals exit 2")
    func split() throws {
        let models = try #require(Self.models, "the models are installed by scripts/install-models.sh")
        let cli = try CLI()
        defer { cli.remove() }
        // The astronaut's head and shoulders (not the mission patch below) at five sizes: one face, one person.
        let astronaut = try ImageDecoder.decode(contentsOf: models + "/fixtures/astronaut.png")
        let head = PixelRect(x: 0, y: 0, width: 512, height: 300)
        func write(_ path: String, width: Int) throws {
            try ImageEncoder.write(try astronaut.resized(from: head, width: width, height: width * 300 / 512), to: path, as: .jpeg())
        }
        try FileSystem.makeFolder(cli.folder + "/photos")
        let photos = (0..<5).map { cli.folder + "/photos/astronaut-\($0).jpg" }
        for (number, path) in photos.enumerated() { try write(path, width: 520 + 40 * number) }
        let db = cli.folder + "/index.sqlite", vision = ["MEMORA_MODELS": models]
        let index = try cli.run(executable: cli.executable, ["index", "--db", db, cli.folder + "/photos"], environment: vision)
        #expect(index.status == 0, "\(index)")
        let found = try Self.people(cli, db)
        let (id, her) = try #require(found.first, "\(found)")
        #expect(found.count == 1 && her.faces == 5, "\(found)")

        let dryRun = try cli.run("people", "split", "--db", db, "\(id)", photos[3], photos[4], "--name", "Sally", "--dry-run")
        #expect(dryRun.status == 0 && dryRun.out == "would move the 2 faces of person \(id) in 2 photos to a new person called Sally; nothing written\n",
                "\(dryRun)")
        #expect(try Self.people(cli, db)[id]?.faces == 5, "nothing written")

        let split = try cli.run("people", "split", "--db", db, "\(id)", photos[3], photos[4], "--name", "Sally", "--json")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(split.out.utf8)) as? [String: Any], "\(split)")
        let sally = try #require((result["target"] as? NSNumber)?.int64Value, "\(result)")
        #expect(split.status == 0 && result["face_count"] as? Int == 2 && result["photos"] as? [String] == [photos[3], photos[4]], "\(result)")
        let after = try Self.people(cli, db)
        #expect(after[id]?.faces == 3 && after[sally]?.faces == 2 && after[sally]?.name == "Sally", "\(after)")

        // A photo edited (indexed again, its face found anew), then every face grouped again: Sally keeps her two.
        try write(photos[4], width: 700)
        let again = try cli.run(executable: cli.executable, ["index", "--db", db, cli.folder + "/photos", "-q"], environment: vision)
        #expect(again.status == 0, "\(again)")
        #expect(try Self.people(cli, db)[sally]?.faces == 2, "the edited photo's face goes back to Sally")
        let rebuild = try cli.run("people", "cluster", "--rebuild", "--db", db)
        #expect(rebuild.status == 0 && rebuild.out.hasPrefix("2 people (0 new)"), "\(rebuild)")
        let rebuilt = try Self.people(cli, db)
        #expect(rebuilt[id]?.faces == 3 && rebuilt[sally]?.faces == 2, "\(rebuilt)")

        let quiet = try cli.run(executable: "/usr/bin/env", ["-C", cli.folder, cli.executable, "people", "split", "--db", db, "\(id)", "photos/astronaut-2.jpg", "-q"])
        #expect(quiet.status == 0 && quiet.out.isEmpty && quiet.err.isEmpty, "a photo from the current folder: \(quiet)")
        #expect(try Self.people(cli, db)[id]?.faces == 2)

        let all = try cli.run("people", "split", "--db", db, "\(id)", photos[0], photos[1])
        #expect(all.status == 2 && all.err.contains("memora people name \(id) NAME") && all.out.isEmpty, "\(all)")
        let stranger = try cli.run("people", "split", "--db", db, "\(sally)", photos[0])
        #expect(stranger.status == 2 && stranger.err.contains("astronaut-0.jpg has no face of person \(sally)"), "\(stranger)")
        #expect(try cli.run("people", "split", "--db", db, "999", photos[0]).status == 2, "no such person")
        #expect(try cli.run("people", "split", "--db", db, "\(id)").status == 64, "no photo: a usage error")
    }
}
