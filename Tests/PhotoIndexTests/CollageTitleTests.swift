import Foundation
import ImageKit
import Testing
@testable import PhotoIndex

@Suite("A collage's title line")
struct CollageTitleTests {
    /// Four plain photos of 2008, each with a wide face box from `top` to `bottom` (fractions of the photo's height).
    func fourPhotos(faceFrom top: Double, to bottom: Double) throws -> (Rows, CollageSelection) {
        let rows = try Rows()
        for index in 0..<4 {
            let path = rows.root + "/t\(index).jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: RGBAColor(red: 90, green: 140, blue: 200)), to: path, as: .jpeg())
            try rows.add("t\(index)", taken: "2008-0\(index + 1)-01T00:00:00Z", quality: 0.9, hash: distinctHash(index),
                         faces: [FaceBox(name: nil, x: 0.05, y: top, width: 0.9, height: bottom - top)], path: path)
        }
        return (rows, try rows.select(CollageRequest(source: .year(2008), count: 4)))
    }

    /// Whether two rectangles overlap.
    func overlap(_ a: PixelRect, _ b: PixelRect) -> Bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }

    @Test("faces at the bottom of every photo: the title goes to the top, over no face, drawn in dark text on its panel")
    func avoidsFaces() async throws {
        let (rows, selection) = try fourPhotos(faceFrom: 0.6, to: 0.95)
        defer { rows.remove() }
        let collage = try await CollageRenderer.render(selection, layout: .grid2x3, title: CollageTitle("Summer 2008 · Ana & Ben"))
        let title = try #require(collage.title)
        #expect(collage.faces.count == 4)
        #expect(!collage.faces.contains { overlap($0, title) }, "\(title) \(collage.faces)")
        #expect(title.y == 24, "the bottom is taken by faces, the top is free: \(title)")
        #expect(collage.image.width == 1200 && collage.image.height == 1500)
        let image = try ImageDecoder.decode(collage.jpeg)
        var dark = 0
        for y in title.y..<title.y + title.height {
            for x in title.x..<title.x + title.width where image.pixel(x: x, y: y).red < 90 { dark += 1 }
        }
        #expect(dark > 500, "the text is drawn: \(dark) dark pixels")
        // Without faces in the way the title sits at the bottom, centred.
        let (plain, plainSelection) = try fourPhotos(faceFrom: 0.0, to: 0.05)
        defer { plain.remove() }
        let bottom = try #require(try await CollageRenderer.render(plainSelection, layout: .grid2x3, title: CollageTitle("Summer")).title)
        #expect(bottom.y + bottom.height == 1500 - 24 && abs(bottom.x + bottom.width / 2 - 600) <= 1)
    }

    @Test("faces everywhere: the canvas grows by a white band that holds the title")
    func growsWhenNoRoom() async throws {
        let (rows, selection) = try fourPhotos(faceFrom: 0.0, to: 1.0)
        defer { rows.remove() }
        let collage = try await CollageRenderer.render(selection, layout: .grid2x3, scale: 2, title: CollageTitle("Everyone"))
        let title = try #require(collage.title)
        #expect(collage.image.width == 2400 && collage.image.height > 3000 && title.y >= 3000)
        #expect(!collage.faces.contains { overlap($0, title) })
    }

    @Test("a long title is set smaller, then cut to fit; an empty or multi-line title and a missing font are refused before anything is read")
    func refusals() async throws {
        let (rows, selection) = try fourPhotos(faceFrom: 0.0, to: 0.05)
        defer { rows.remove() }
        let long = try await CollageRenderer.render(selection, layout: .dynamic, title: CollageTitle(String(repeating: "A very long title ", count: 20)))
        let title = try #require(long.title)
        #expect(title.x >= 24 && title.x + title.width <= 1200 - 24)
        for bad in [CollageTitle("  "), CollageTitle("two\nlines"), CollageTitle("x", fontPath: rows.root + "/missing.ttf")] {
            let refused = await #expect(throws: PhotoIndexError.self) {
                try await CollageJob(database: rows.database, request: CollageRequest(source: .year(2008), count: 4), title: bad).run(writingTo: rows.root + "/t.jpg")
            }
            #expect(refused?.code == .invalidRequest)
        }
        let missingFont = await #expect(throws: PhotoIndexError.self) {
            try await CollageJob(database: rows.database, request: CollageRequest(source: .year(2008)), title: CollageTitle("x", fontPath: "/nonexistent.ttf"))
                .run(writingTo: rows.root + "/t.jpg")
        }
        #expect(missingFont?.message.contains("fonts-dejavu-core") == true)
        #expect(!FileManager.default.fileExists(atPath: rows.root + "/t.jpg"))
    }
}
