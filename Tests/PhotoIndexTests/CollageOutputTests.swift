import Foundation
import ImageKit
import Testing
@testable import PhotoIndex

@Suite("Collage layouts that fit the count, file formats, and no index")
struct CollageOutputTests {
    @Test("each layout gives exactly one cell per photo, rows that span the canvas, and no blank cell", arguments: CollageLayout.allCases)
    func layoutAdapts(layout: CollageLayout) throws {
        let expected: [CollageLayout: [[Int]]] = [
            .grid2x3: [[1], [1, 1], [2, 1], [2, 2], [2, 2, 1], [2, 2, 2]],
            .dynamic: [[1], [1, 1], [2, 1], [2, 2], [3, 2], [3, 3], [3, 2, 2], [3, 3, 2], [3, 3, 3], [3, 3, 2, 2]],
        ]
        for (offset, rows) in try #require(expected[layout]).enumerated() {
            let count = offset + 1
            #expect(layout.rows(count: count) == rows, "\(layout) \(count)")
            let (width, height) = layout.canvasSize(scale: 2)
            let cells = try layout.cells(count: count, scale: 2)
            #expect(cells.count == count)
            // Row by row: each row starts at the left edge, ends at the right one, 12 px (6 at 2x) between cells;
            // the rows go from the top to the bottom edge the same way.
            var start = 0
            var top = 0
            for columns in rows {
                let row = Array(cells[start..<start + columns])
                #expect(row.first?.x == 0 && row.last.map { $0.x + $0.width } == width, "\(layout) \(count): \(row)")
                #expect(zip(row, row.dropFirst()).allSatisfy { $1.x - ($0.x + $0.width) == 12 && $0.y == $1.y && $0.height == $1.height })
                #expect(row[0].y == top)
                top = row[0].y + row[0].height + 12
                start += columns
            }
            #expect(top - 12 == height, "the last row ends at the bottom edge")
        }
        #expect(try CollageLayout.grid2x3.cells(count: 6, scale: 1)[0] == PixelRect(x: 0, y: 0, width: 597, height: 496), "six photos: the original grid")
    }

    @Test("four and five photos fill the canvas: every cell holds its photo, none is left white", arguments: [4, 5])
    func renderFewerPhotos(count: Int) async throws {
        let rows = try Rows()
        defer { rows.remove() }
        let colours: [RGBAColor] = [
            RGBAColor(red: 220, green: 30, blue: 30), RGBAColor(red: 30, green: 200, blue: 30), RGBAColor(red: 30, green: 30, blue: 220),
            RGBAColor(red: 230, green: 220, blue: 30), RGBAColor(red: 200, green: 30, blue: 200),
        ]
        for index in 0..<count {
            let path = rows.root + "/f\(index).jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: colours[index]), to: path, as: .jpeg(JPEGEncodingOptions(quality: 0.95)))
            try rows.add("f\(index)", taken: "2011-0\(index + 1)-01T00:00:00Z", quality: 0.9, hash: distinctHash(index), path: path)
        }
        let selection = try rows.select(CollageRequest(source: .year(2011), count: 6))
        #expect(selection.photos.count == count && selection.notes.contains { $0.contains("only \(count) suitable photos") })
        for layout in CollageLayout.allCases {
            let collage = try await CollageRenderer.render(selection, layout: layout)
            #expect(collage.cells.count == count)
            let image = try ImageDecoder.decode(collage.jpeg)
            for (slot, cell) in collage.cells.enumerated() {
                let colour = colours[slot]
                // The centre and the four corners (inside the rounded ones) of every cell show its photo.
                let inset = 12
                for (x, y) in [(cell.cell.x + cell.cell.width / 2, cell.cell.y + cell.cell.height / 2), (cell.cell.x + inset, cell.cell.y + inset),
                               (cell.cell.x + cell.cell.width - inset, cell.cell.y + inset), (cell.cell.x + inset, cell.cell.y + cell.cell.height - inset),
                               (cell.cell.x + cell.cell.width - inset, cell.cell.y + cell.cell.height - inset)] {
                    let pixel = image.pixel(x: x, y: y)
                    #expect(abs(Int(pixel.red) - Int(colour.red)) < 16 && abs(Int(pixel.green) - Int(colour.green)) < 16 && abs(Int(pixel.blue) - Int(colour.blue)) < 16,
                            "\(layout) cell \(slot) at \(x),\(y): \(pixel)")
                }
            }
            // Sampled every 10 px, the canvas is white only in the 6-px gaps between cells.
            var white = 0, samples = 0
            for y in stride(from: 5, to: image.height, by: 10) {
                for x in stride(from: 5, to: image.width, by: 10) {
                    samples += 1
                    let pixel = image.pixel(x: x, y: y)
                    if pixel.red > 240 && pixel.green > 240 && pixel.blue > 240 { white += 1 }
                }
            }
            #expect(Double(white) / Double(samples) < 0.02, "\(layout) \(count): \(white) of \(samples) samples white")
        }
    }

    @Test("a photo that cannot be read with no backup left: the others are laid out again for their count, no blank cell")
    func relayoutAfterFailure() async throws {
        let rows = try Rows()
        defer { rows.remove() }
        for index in 0..<3 {
            let path = rows.root + "/r\(index).jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: RGBAColor(red: 30, green: 30, blue: 200)), to: path, as: .jpeg())
            try rows.add("r\(index)", taken: "2010-0\(index + 1)-01T00:00:00Z", quality: 0.9, hash: distinctHash(index), path: path)
        }
        let selection = try rows.select(CollageRequest(source: .year(2010), count: 3, extraCandidates: 0))
        try FileManager.default.removeItem(atPath: rows.root + "/r1.jpg")
        let collage = try await CollageRenderer.render(selection, layout: .grid2x3)
        #expect(collage.cells.map(\.path) == [rows.root + "/r0.jpg", rows.root + "/r2.jpg"])
        let twoCells = try CollageLayout.grid2x3.cells(count: 2, scale: 1)
        #expect(collage.cells.map(\.cell) == twoCells)
        #expect(collage.failed.map(\.path) == [rows.root + "/r1.jpg"])
    }

    @Test("the output's extension chooses the format; another extension is refused before anything is written")
    func fileFormats() async throws {
        #expect(CollageFileFormat(path: "/a/b.JPG") == .jpeg && CollageFileFormat(path: "x.jpeg") == .jpeg && CollageFileFormat(path: "x.png") == .png)
        #expect(CollageFileFormat(path: "x.webp") == .webp && CollageFileFormat(path: "x.heic") == .heic && CollageFileFormat(path: "x.avif") == .avif)
        for refused in ["x.gif", "x", "dir.png/x", ".png", "x.png.txt"] { #expect(CollageFileFormat(path: refused) == nil, "\(refused)") }
        let rows = try Rows()
        defer { rows.remove() }
        let path = rows.root + "/w.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 400, height: 300), to: path, as: .jpeg())
        try rows.add("w", taken: "2009-01-01T00:00:00Z", quality: 0.9, hash: distinctHash(1), path: path)
        let job = CollageJob(database: rows.database, request: CollageRequest(source: .year(2009), count: 1))
        let png = try await job.run(writingTo: rows.root + "/c.png")
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: rows.root + "/c.png")))
        #expect(png.collage.format == .png && written.starts(with: [0x89, 0x50, 0x4E, 0x47]) && written == png.collage.encoded)
        #expect(png.collage.jpeg.starts(with: [0xFF, 0xD8, 0xFF]), "the JPEG of a PNG collage is a JPEG")
        let webp = try await job.run(writingTo: rows.root + "/c.webp")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: rows.root + "/c.webp")))
        #expect(webp.collage.format == .webp && bytes.prefix(4).elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8))
        let refused = await #expect(throws: PhotoIndexError.self) { try await job.run(writingTo: rows.root + "/c.gif") }
        #expect(refused?.code == .invalidRequest && refused?.message.contains(".jpg, .jpeg, .png, .webp, .heic, .heif, .avif") == true)
        #expect(!FileManager.default.fileExists(atPath: rows.root + "/c.gif"))
    }

    @Test("no index yet: opening it to read is refused with the advice to index first, and no file is created; an empty index says the same")
    func noIndexYet() async throws {
        let root = NSTemporaryDirectory() + "collage-none-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/index.sqlite"
        let missing = #expect(throws: PhotoIndexError.self) { try PhotoIndexDatabase(path: path, creatingIfMissing: false) }
        #expect(missing?.code == .noIndex && missing?.message == "there is no photo index at \(path) yet: run `memora index PHOTOS` first (PHOTOS: the folder of your photos)")
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: root))
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: PhotoIndexError.noIndex(path: path)) { try PhotoIndexDatabase(path: path, creatingIfMissing: false) }
        try FileManager.default.removeItem(atPath: path)
        _ = try PhotoIndexDatabase(path: path)   // created, with no photo
        let empty = try PhotoIndexDatabase(path: path, creatingIfMissing: false)
        let refused = await #expect(throws: PhotoIndexError.self) {
            try await CollageJob(database: empty, request: CollageRequest(source: .year(2020))).run(writingTo: root + "/c.jpg")
        }
        #expect(refused?.code == .noIndex && refused?.message.contains("has no photos yet: run `memora index PHOTOS` first") == true)
    }
}
