import Foundation
import ImageKit
@testable import MetadataKit
import Testing
@testable import MemoraCore
import MemoraTesting
import TestSupport

/// A weak caption is never written as if it were real: no model and no fallback means nothing
/// is written, the basic description is marked and replaced by the next real caption, and a
/// caption Memora did not write is left alone unless the user asks.
@Suite("Weak captions are never passed off as real")
struct WeakCaptionTests {
    /// An RGB image whose pixel at (x, y) is `color(x, y)`.
    static func image(width: Int, height: Int, _ color: (Int, Int) -> RGBAColor) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let pixel = color(x, y)
                pixels += [pixel.red, pixel.green, pixel.blue]
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    /// Bytes of every file, to show nothing was written.
    static func contents(_ paths: [String]) throws -> [[UInt8]] {
        try paths.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
    }

    @Test("no model can run and no fallback: the job fails before writing anything, naming each model's fix")
    func noModelNothingWritten() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photos = [try makeCameraJPEG(in: folder, name: "a.jpg", seed: 1), try makeCameraJPEG(in: folder, name: "b.jpg", seed: 2)]
        let before = try Self.contents(photos)
        let refused = try await LoopbackModelServer.refusedURL()
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let onDevice = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString])
        await #expect { _ = try await CaptionJob(database: database, models: .configured(onDevice), ignoresConstraints: true).run(paths: [folder]) } throws: {
            let error = $0 as? MemoraError
            return error?.code == .noModel && error?.message.contains("ollama serve") == true && error?.message.contains("--fallback basic") == true
        }
        // Gemini without a key, and no local model either: the key is named.
        let gemini = CaptionConfiguration(mode: .gemini, secretsPath: folder + "/no-secrets",
                                          environment: ["MEMORA_OLLAMA_URL": refused.absoluteString])
        await #expect { _ = try await CaptionJob(database: database, models: .configured(gemini), ignoresConstraints: true).run(paths: [folder]) } throws: {
            ($0 as? MemoraError)?.code == .noModel && ($0 as? MemoraError)?.message.contains("GEMINI_API_KEY") == true
        }
        #expect(try Self.contents(photos) == before, "no photo was touched")
        #expect(try PhotoHistory(database: database).entries(forPath: photos[0]).isEmpty)
        #expect(try ProcessingQueue(database: database).counts()[.completed] ?? 0 == 0)
    }

    @Test("--fallback basic writes the basic description, marked; a real model replaces it later without --force")
    func basicThenReal() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder, name: "a.jpg")
        let refused = try await LoopbackModelServer.refusedURL()
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let basic = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString], fallback: .basic)
        let first = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [photo])
        #expect(first.summary.captioned == 1 && first.summary.models[BasicDescriptionGenerator.identifier] == 1)
        let marked = try MetadataReader.read(contentsOf: photo).captions
        #expect(marked.isBasicDescription && marked.caption?.hasPrefix("A photo") == true)

        let server = LoopbackModelServer(flavor: .ollama)
        let url = try await server.start()
        defer { Task { await server.stop() } }
        let real = CaptionConfiguration(mode: .onDevice, endpoint: url, model: "llava", environment: [:])
        let second = try await CaptionJob(database: database, models: .configured(real), ignoresConstraints: true).run(paths: [photo])
        #expect(second.summary.captioned == 1)
        let replaced = try MetadataReader.read(contentsOf: photo).captions
        #expect(replaced.caption == "A red kite above a green hill." && !replaced.isBasicDescription && replaced.basicDescription == nil)
        let entries = try PhotoHistory(database: database).entries(forPath: photo)
        #expect(entries.map(\.modelUsed) == [BasicDescriptionGenerator.identifier, "ollama:llava"])

        // The real caption is Memora's own: kept without --force, replaced with it.
        let third = try await CaptionJob(database: database, models: .configured(real), ignoresConstraints: true).run(paths: [photo])
        #expect(third.summary.captioned == 0)
    }

    @Test("one call describes a file or bytes with a configuration, writing nothing; no model and no fallback is noModel")
    func describeInOneCall() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: photo))
        let server = LoopbackModelServer(flavor: .ollama)
        let url = try await server.start()
        defer { Task { await server.stop() } }
        let configuration = CaptionConfiguration(mode: .onDevice, endpoint: url, model: "llava", environment: [:])
        let described = try await configuration.describe(file: photo)
        #expect(described.description == "A red kite above a green hill." && described.model.identifier == "ollama:llava")
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before, "nothing written")
        let fromBytes = try await configuration.describe(bytes: [UInt8](before))
        #expect(fromBytes.description == described.description)
        #expect(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("memora-describe-") }.isEmpty, "the temporary copy is gone")

        let refused = try await LoopbackModelServer.refusedURL()
        let none = CaptionConfiguration(mode: .onDevice, endpoint: refused, environment: [:])
        await #expect { _ = try await none.describe(file: photo) } throws: { ($0 as? MemoraError)?.code == .noModel }
        let basic = try await CaptionConfiguration(mode: .onDevice, endpoint: refused, environment: [:], fallback: .basic).describe(file: photo)
        #expect(basic.model.provider == .basicDescription && basic.altText != basic.description)
    }

    @Test("the basic description names people, counts faces, gives month and place and colours a person would use; its alt text is its own")
    func betterBasicDescription() throws {
        // A tan shape on a red rug.
        let image = try Self.image(width: 64, height: 64) { x, y in
            (10..<54).contains(x) && (16..<48).contains(y) ? RGBAColor(red: 205, green: 170, blue: 125) : RGBAColor(red: 178, green: 34, blue: 40)
        }
        var metadata = try MetadataReader.read(try ImageEncoder.encode(image, as: .jpeg()))
        metadata.people = ["Ana", "Ben"]
        metadata.dateTaken = CaptureDate(date: Date(timeIntervalSince1970: 1_563_120_000), utcOffsetSeconds: 7200, source: "test")
        metadata.place = PlaceName(sublocation: nil, city: "Lyon", state: nil, country: "France")
        let (caption, altText) = BasicDescriptionGenerator.describe(image: image, metadata: metadata)
        #expect(caption == "A photo of Ana and Ben, taken in July 2019 in Lyon, France; mostly red and tan.")
        #expect(altText == "Ana and Ben in Lyon, France.")
        for filler in ["tall", "wide", "tones", "grey"] { #expect(!caption.contains(filler)) }

        metadata.people = ["Ana"]
        metadata.regions = [FaceRegion(name: "Ana", x: 0.1, y: 0.1, width: 0.2, height: 0.2), FaceRegion(x: 0.4, y: 0.1, width: 0.2, height: 0.2),
                            FaceRegion(x: 0.7, y: 0.1, width: 0.2, height: 0.2)]
        #expect(BasicDescriptionGenerator.describe(image: image, metadata: metadata).caption.hasPrefix("A photo of Ana and 2 other people, taken"))
        metadata.people = []
        #expect(BasicDescriptionGenerator.describe(image: image, metadata: metadata).caption.hasPrefix("A photo of 3 people, taken"))

        let night = try Image(width: 40, height: 30, fill: RGBAColor(red: 10, green: 12, blue: 60))
        let plain = BasicDescriptionGenerator.describe(image: night, metadata: nil)
        #expect(plain.caption == "A dark photo; mostly blue.")
        #expect(plain.altText != plain.caption && plain.altText == "Dark photo, mostly blue.")
    }

    @Test("colour names: tan, brown, beige and the hues; grey, black and white only for colourless pixels, and only when they dominate")
    func colourNames() throws {
        #expect(ColorNames.name(RGBAColor(red: 205, green: 170, blue: 125)) == "tan")
        #expect(ColorNames.name(RGBAColor(red: 110, green: 70, blue: 40)) == "brown")
        #expect(ColorNames.name(RGBAColor(red: 240, green: 230, blue: 205)) == "beige")
        #expect(ColorNames.name(RGBAColor(red: 200, green: 30, blue: 30)) == "red")
        #expect(ColorNames.name(RGBAColor(red: 128, green: 128, blue: 130)) == "grey")
        #expect(ColorNames.name(RGBAColor(red: 20, green: 20, blue: 20)) == "black")
        // A fifth of the picture coloured, the rest grey shadow: the colour is named first when grey does not dominate.
        let grey = RGBAColor(red: 90, green: 90, blue: 92), blue = RGBAColor(red: 30, green: 90, blue: 200), yellow = RGBAColor(red: 220, green: 200, blue: 60)
        #expect(ColorNames.dominant(in: try Self.image(width: 10, height: 10) { _, y in y < 2 ? blue : grey }) == ["grey", "blue"])
        #expect(ColorNames.dominant(in: try Self.image(width: 10, height: 10) { _, y in y < 2 ? blue : y < 8 ? yellow : grey }) == ["yellow", "blue"],
                "grey under 30% is not named")
    }
}
