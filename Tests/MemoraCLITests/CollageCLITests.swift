import Foundation
import ImageKit
import MemoraSystem
import TestSupport
import Testing

/// A sidecar XMP packet with the date a photo was taken and, optionally, a person and their face box (MWG, top-left origin).
private func sidecar(date: String, person: String? = nil, face: (x: Double, y: Double, width: Double, height: Double)? = nil) -> String {
    let people = person.map { "<Iptc4xmpExt:PersonInImage><rdf:Bag><rdf:li>\($0)</rdf:li></rdf:Bag></Iptc4xmpExt:PersonInImage>" } ?? ""
    // MWG areas are given by their centre.
    let regions = face.map { face in
        "<mwg-rs:Regions rdf:parseType=\"Resource\"><mwg-rs:RegionList><rdf:Bag><rdf:li rdf:parseType=\"Resource\">"
            + "<mwg-rs:Name>\(person ?? "")</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type>"
            + "<mwg-rs:Area stArea:x=\"\(face.x + face.width / 2)\" stArea:y=\"\(face.y + face.height / 2)\" stArea:w=\"\(face.width)\" stArea:h=\"\(face.height)\" stArea:unit=\"normalized\"/>"
            + "</rdf:li></rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>"
    } ?? ""
    return """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
         xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#" exif:DateTimeOriginal="\(date)">
        \(people)\(regions)
        </rdf:Description></rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """
}

extension CLI {
    /// `count` distinct photos of 2019 under `library/`, each with a sidecar dating it; Ana is in those of `ana`,
    /// her face a 0.2 x 0.2 box (4% of the photo), 0.3 x 0.3 (9%) in those of `largerFaces`. Indexed into
    /// `index.sqlite`; returns its path.
    func collageLibrary(count: Int, ana: Range<Int> = 0..<0, largerFaces: Range<Int> = 0..<0) throws -> String {
        for index in 0..<count {
            let photo = try photo("library/p\(index).jpg", seed: UInt64(index + 1) &* 7_919)
            let date = String(format: "2019-%02d-%02dT12:00:00", index % 12 + 1, index / 12 + 1)
            let side = largerFaces.contains(index) ? 0.3 : 0.2
            let text = ana.contains(index) ? sidecar(date: date, person: "Ana", face: (0.4, 0.3, side, side)) : sidecar(date: date)
            try AtomicFileWriter.write(Array(text.utf8), to: photo + ".xmp")
        }
        let database = folder + "/index.sqlite"
        let indexed = try run("index", "build", "--db", database, folder + "/library")
        #expect(indexed.status == 0, "\(indexed.err)")
        return database
    }
}

@Suite("memora collage, end to end")
struct CollageCLITests {
    @Test("before an index exists: exit 2 with `run memora index PHOTOS first`, no SQLite or Foundation text, and no index file created")
    func noIndexYet() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let database = cli.folder + "/index.sqlite"
        let explicit = try cli.run("collage", "--db", database, "--year", "2019", "--out", cli.folder + "/c.jpg")
        #expect(explicit.status == 2)
        #expect(explicit.err == "Error: there is no photo index at \(database) yet: run `memora index PHOTOS` first (PHOTOS: the folder of your photos)\n",
                "\(explicit.err)")
        #expect(!FileSystem.exists(database) && !FileSystem.exists(database + "-wal") && !FileSystem.exists(cli.folder + "/c.jpg"))
        // The default index ($XDG_DATA_HOME/memora/index.sqlite) is not created either, nor its folder.
        let byDefault = try cli.run("collage", "--person", "Ana", "--out", cli.folder + "/c.jpg")
        #expect(byDefault.status == 2 && byDefault.err.contains("run `memora index PHOTOS` first"), "\(byDefault.err)")
        #expect(!byDefault.err.contains("SQLite") && !byDefault.err.contains("Error Domain"))
        #expect(!FileSystem.exists(cli.folder + "/data/memora/index.sqlite") && !FileSystem.exists(cli.folder + "/data/memora"))
        // An index that exists but holds no photo gives the same advice.
        #expect(try cli.run("index", "build", "--db", database, try { try FileSystem.makeFolder(cli.folder + "/empty"); return cli.folder + "/empty" }()).status == 0)
        let empty = try cli.run("collage", "--db", database, "--year", "2019", "--out", cli.folder + "/c.jpg")
        #expect(empty.status == 2 && empty.err.contains("has no photos yet: run `memora index PHOTOS` first"), "\(empty.err)")
    }

    @Test("--out: the extension chooses the format (JPEG, PNG, WebP, HEIC, AVIF), checked by the file's first bytes; another extension is a usage error naming the accepted ones")
    func outputFormats() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let database = try cli.collageLibrary(count: 4)
        let magic: [(String, (([UInt8]) -> Bool))] = [
            ("jpg", { $0.starts(with: [0xFF, 0xD8, 0xFF]) }),
            ("JPEG", { $0.starts(with: [0xFF, 0xD8, 0xFF]) }),
            ("png", { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }),
            ("webp", { $0.starts(with: Array("RIFF".utf8)) && $0.count > 12 && $0[8..<12].elementsEqual("WEBP".utf8) }),
            ("heic", { $0.count > 12 && $0[4..<8].elementsEqual("ftyp".utf8) && $0[8..<12].elementsEqual("heic".utf8) }),
            ("avif", { $0.count > 12 && $0[4..<8].elementsEqual("ftyp".utf8) && $0[8..<12].elementsEqual("avif".utf8) }),
        ]
        for (ext, matches) in magic {
            let out = cli.folder + "/collage." + ext
            let made = try cli.run("collage", "--db", database, "--year", "2019", "--layout", "dynamic", "--out", out)
            #expect(made.status == 0, "\(ext): \(made.err)")
            let bytes = try SystemFile(out).readAll()
            #expect(matches(bytes), "\(ext): \(bytes.prefix(12).map { String($0, radix: 16) })")
            #expect(try ImageDecoder.decode(bytes).width == 1200, "\(ext) decodes")
        }
        for refused in ["collage.gif", "collage.txt", "collage"] {
            let out = cli.folder + "/" + refused
            let result = try cli.run("collage", "--db", database, "--year", "2019", "--out", out)
            #expect(result.status == 64, "\(refused): \(result.err)")
            #expect(result.err.contains(".jpg, .jpeg, .png, .webp, .heic, .heif, .avif"), "\(result.err)")
            #expect(!FileSystem.exists(out))
        }
    }

    @Test("--person Ana whose faces are all small: exit 2, how many photos show her and why each group was left out, and --min-face-share; with it the collage is made")
    func personFaceShare() throws {
        let cli = try CLI()
        defer { cli.remove() }
        // 21 photos of Ana, her face 4% of 18 of them and 9% of 3; 2 photos without her.
        let database = try cli.collageLibrary(count: 23, ana: 0..<21, largerFaces: 0..<3)
        let stats = try cli.run("index", "stats", "--db", database)
        #expect(stats.out.contains("Ana (21)"), "\(stats.out)")
        let out = cli.folder + "/ana.jpg"
        let refused = try cli.run("collage", "--db", database, "--person", "Ana", "--out", out)
        #expect(refused.status == 2 && !FileSystem.exists(out))
        #expect(refused.err.contains("Ana is in 21 indexed photos: 0 chosen; left out: 21 where Ana's face covers 15% of the photo or less"), "\(refused.err)")
        #expect(refused.err.contains("--min-face-share 0.03 admits 21 more"), "\(refused.err)")

        let made = try cli.run("collage", "--db", database, "--person", "Ana", "--min-face-share", "0.03", "--out", out, "--explain")
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.contains("6 photos") && FileSystem.exists(out), "\(made.out)")
        #expect(made.out.contains("in all: Ana is in 21 indexed photos: 6 chosen, 4 kept as backups; left out: 11 ranked below"), "\(made.out)")
        #expect(made.out.components(separatedBy: "; cropped around Ana (a region in its metadata)").count == 7, "--explain names the face each crop is centred on: \(made.out)")

        // Too few: at 0.05 only the 3 larger faces pass; the collage has 3 photos, and --explain prints every group left out.
        let few = try cli.run("collage", "--db", database, "--person", "Ana", "--min-face-share", "0.05", "--out", out, "--explain")
        #expect(few.status == 0, "\(few.err)")
        #expect(few.out.contains("3 photos"), "\(few.out)")
        #expect(few.err.contains("note: only 3 suitable photos") && few.err.contains("--min-face-share 0.03 admits 18 more"), "\(few.err)")
        #expect(few.out.contains("    18 where Ana's face covers 5% of the photo or less"), "\(few.out)")

        for bad in ["0", "1.5", "-0.1", "many"] {
            let result = try cli.run("collage", "--db", database, "--person", "Ana", "--min-face-share", bad, "--out", out)
            #expect(result.status == 64, "\(bad): \(result.err)")
        }
    }
}

@Suite("memora collage --title, end to end")
struct CollageTitleCLITests {
    @Test("--title draws a line of text on the collage; an empty or multi-line title is a usage error")
    func title() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let database = try cli.collageLibrary(count: 4)
        let plain = cli.folder + "/plain.png", titled = cli.folder + "/titled.png"
        #expect(try cli.run("collage", "--db", database, "--year", "2019", "--out", plain).status == 0)
        let made = try cli.run("collage", "--db", database, "--year", "2019", "--title", "Summer 2019", "--out", titled)
        #expect(made.status == 0, "\(made.err)")
        let (before, after) = (try ImageDecoder.decode(try SystemFile(plain).readAll()), try ImageDecoder.decode(try SystemFile(titled).readAll()))
        #expect(before.width == after.width && before.height == after.height && before.pixels != after.pixels)
        for bad in ["", "two\nlines"] {
            #expect(try cli.run("collage", "--db", database, "--year", "2019", "--title", bad, "--out", titled).status == 64, "\(bad)")
        }
    }
}

@Suite("memora collage --place with a saved place, end to end")
struct SavedPlaceCollageCLITests {
    @Test("--place NAME of a saved place (memora places add) chooses the photos inside its circle; a name no place has matches place names as before")
    func savedPlaceCircle() throws {
        let cli = try CLI()
        defer { cli.remove() }
        // Three photos taken at the Eiffel Tower (the camera block's GPS: 48.8582 N, 2.2945 E), three with no position.
        var inside: [String] = []
        for index in 0..<6 {
            let photo = try cli.photo("library/p\(index).jpg", seed: UInt64(index + 1) &* 7_919)
            if index < 3 {
                let jpeg = JPEGBuilder.inserting(JPEGBuilder.exifSegment(TIFFBuilder().cameraBlock()), into: [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo))))
                try AtomicFileWriter.write(jpeg, to: photo)
                inside.append(photo)
            }
        }
        let index = cli.folder + "/index.sqlite", captions = cli.folder + "/memora.sqlite"
        #expect(try cli.run("index", "build", "--db", index, cli.folder + "/library").status == 0)
        let saved = try cli.run("places", "add", "--db", captions, "Eiffel Tower", "--latitude", "48.8584", "--longitude", "2.2945", "--radius", "300")
        #expect(saved.status == 0, "\(saved.err)")
        #expect(try cli.run("places", "add", "--db", captions, "Far away", "--latitude", "-33.86", "--longitude", "151.21").status == 0)

        // The name is found without case or extra spaces; the note says which circle is used.
        let made = try cli.run("collage", "--db", index, "--place", " eiffel  TOWER ", "--places-db", captions, "--count", "3",
                               "--out", cli.folder + "/c.jpg", "--json")
        #expect(made.status == 0, "\(made.err)")
        #expect(made.err.contains("Eiffel Tower is a saved place: photos within 300 m of 48.85840, 2.29450"), "\(made.err)")
        let selection = try JSONSerialization.jsonObject(with: Data(made.out.utf8)) as? [String: Any]
        let chosen = (selection?["photos"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
        #expect(Set(chosen.map { FileSystem.resolvedPath($0) ?? $0 }) == Set(inside.map { FileSystem.resolvedPath($0) ?? $0 }), "\(made.out)")

        // A saved place with no photos inside its circle: no collage, and the message says why.
        let far = try cli.run("collage", "--db", index, "--place", "Far away", "--places-db", captions, "--out", cli.folder + "/far.jpg")
        #expect(far.status != 0 && !FileSystem.exists(cli.folder + "/far.jpg"))
        // Two places with one name: the error names their ids.
        #expect(try cli.run("places", "add", "--db", captions, "far away", "--latitude", "1", "--longitude", "1").status == 0)
        let ambiguous = try cli.run("collage", "--db", index, "--place", "Far away", "--places-db", captions, "--out", cli.folder + "/far.jpg")
        #expect(ambiguous.status != 0 && ambiguous.err.contains("2 saved places are called Far away: give one of their ids"), "\(ambiguous.err)")
        // Bad coordinates are refused with the field at fault; removing by name works.
        let bad = try cli.run("places", "add", "--db", captions, "Nowhere", "--latitude", "91", "--longitude", "0")
        #expect(bad.status != 0 && bad.err.contains("latitude"), "\(bad.err)")
        #expect(try cli.run("places", "remove", "--db", captions, "Eiffel Tower").status == 0)
        let gone = try cli.run("places", "remove", "--db", captions, "Eiffel Tower")
        #expect(gone.status != 0 && gone.err.contains("no saved place is called Eiffel Tower"), "\(gone.err)")
    }
}
