import Foundation
import ImageKit
@testable import MetadataKit
@testable import PhotoIndex
import MemoraSystem
import PhotoVision
import PhotoVisionCore
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
        let refused = try LoopbackModelServer.refusedURL()
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let onDevice = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString])
        await #expect { _ = try await CaptionJob(database: database, models: .configured(onDevice), ignoresConstraints: true).run(paths: [folder]) } throws: {
            let error = $0 as? MemoraError
            return error?.code == .noModel && error?.message.contains("ollama serve") == true && error?.message.contains("--fallback on-device") == true
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
        let refused = try LoopbackModelServer.refusedURL()
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let basic = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString], fallback: .basic)
        let first = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [photo])
        #expect(first.summary.captioned == 1 && first.summary.models[BasicDescriptionGenerator.identifier] == 1)
        let marked = try MetadataReader.read(contentsOf: photo).captions
        #expect(marked.isBasicDescription && marked.caption?.contains("July 2019") == true, "\(String(describing: marked.caption))")
        #expect(marked.captionSource?.contains("on-device models") == true && marked.extendedDescription != nil)

        let server = LoopbackModelServer(flavor: .ollama)
        let url = try await server.start()
        try await withAsyncCleanup {
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
        } cleanup: {
            await server.stop()
        }
    }

    @Test("one call describes a file or bytes with a configuration, writing nothing; no model and no fallback is noModel")
    func describeInOneCall() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = try makeCameraJPEG(in: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: photo))
        let server = LoopbackModelServer(flavor: .ollama)
        let url = try await server.start()
        try await withAsyncCleanup {
            let configuration = CaptionConfiguration(mode: .onDevice, endpoint: url, model: "llava", environment: [:])
            let described = try await configuration.describe(file: photo)
            #expect(described.description == "A red kite above a green hill." && described.model.identifier == "ollama:llava")
            #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before, "nothing written")
            let fromBytes = try await configuration.describe(bytes: [UInt8](before))
            #expect(fromBytes.description == described.description)
            #expect(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
                .filter { $0.hasPrefix("memora-describe-") }.isEmpty, "the temporary copy is gone")

            let refused = try LoopbackModelServer.refusedURL()
            let none = CaptionConfiguration(mode: .onDevice, endpoint: refused, environment: [:])
            await #expect { _ = try await none.describe(file: photo) } throws: { ($0 as? MemoraError)?.code == .noModel }
            let basic = try await CaptionConfiguration(mode: .onDevice, endpoint: refused, environment: [:], fallback: .basic).describe(file: photo)
            #expect(basic.model.provider == .basicDescription && basic.altText != basic.description)
        } cleanup: {
            await server.stop()
        }
    }

    /// The words the composer's tests check text against (the installed lists are tested in PhotoVisionCoreTests).
    static let legibility = TextLegibility(words: WordList(words: ["praia", "da", "luz", "gelados", "dish", "number", "with", "a", "long", "name", "region",
                                                                   "based", "segmentation", "let", "us", "first", "determine", "markers"]))

    @Test("lines stacked as one sign are quoted as one string; a line that cannot be quoted breaks the block; the alt text passes over a string too long to fit, and measures an upright line by its width")
    func stackedText() {
        var sign = PhotoFacts(subject: SceneSubject(noun: "truck", probability: 0.9))
        // "TRUCK" centred over "SCHOOL", the boxes touching, as on the caption samples' truck.
        sign.text = [TextLine(text: "TRUCK", confidence: 0.99, x: 0.543, y: 0.242, width: 0.123, height: 0.030),
                     TextLine(text: "SCHOOL", confidence: 0.99, x: 0.530, y: 0.270, width: 0.147, height: 0.032)]
        #expect(DescriptionComposer.compose(sign, legibility: Self.legibility).altText == "A truck. Text in the photo reads \"TRUCK SCHOOL\".")
        // A misread line between two legible ones: no string joins words it stood between.
        var label = PhotoFacts(subject: SceneSubject(noun: "sign", probability: 0.9))
        label.text = [TextLine(text: "Praia", confidence: 0.99, x: 0.1, y: 0.10, width: 0.3, height: 0.05),
                      TextLine(text: "Gelados Miek", confidence: 0.9, weakestCharacter: 0.6, x: 0.1, y: 0.16, width: 0.3, height: 0.05),
                      TextLine(text: "da Luz", confidence: 0.99, x: 0.1, y: 0.22, width: 0.3, height: 0.05)]
        let labelled = DescriptionComposer.compose(label, legibility: Self.legibility)
        #expect(labelled.caption == "A sign. Text in the photo reads \"Praia\" and \"da Luz\".")
        #expect(labelled.extended == "Partly legible: \"Gelados Miek\".")
        // The first string cannot fit the alt text even alone: the ones after it still can.
        var menu = PhotoFacts(subject: SceneSubject(noun: "menu", probability: 0.9))
        let long = Array(repeating: "Dish with a long name", count: 6).joined(separator: " ")
        menu.text = [TextLine(text: long, confidence: 0.99, x: 0, y: 0.1, width: 0.9, height: 0.05),
                     TextLine(text: "Praia da Luz", confidence: 0.99, x: 0.6, y: 0.5, width: 0.3, height: 0.05)]
        let described = DescriptionComposer.compose(menu, legibility: Self.legibility)
        #expect(described.altText == "A menu. Text in the photo reads \"Praia da Luz\".")
        #expect(described.extended?.contains(long) == true)
        // A date imprinted upright down the side (the caption samples' jug) runs long, not tall: it
        // is measured by its width, and the name printed across the jug stays in the alt text.
        var jug = PhotoFacts(subject: SceneSubject(noun: "jug", probability: 0.9))
        jug.text = [TextLine(text: "Praia da Luz", confidence: 0.99, x: 0.27, y: 0.21, width: 0.54, height: 0.09),
                    TextLine(text: "02.28.2010 02:14", confidence: 0.99, x: 0.9, y: 0.6, width: 0.06, height: 0.335)]
        #expect(jug.text[1].letterHeight == 0.06 && jug.text[0].letterHeight == 0.09)
        #expect(DescriptionComposer.compose(jug, legibility: Self.legibility).altText == "A jug. Text in the photo reads \"Praia da Luz\" and \"02.28.2010 02:14\".")
    }

    @Test("a subject the scene model is not sure of is said as a possibility, alone, beside people, on a screen and in black and white; a sure one plainly")
    func doubtfulSubject() throws {
        #expect(SceneSubject(noun: "dog", probability: SceneNouns.sureProbability).isSure)
        #expect(!SceneSubject(noun: "dog", probability: SceneNouns.sureProbability.nextDown).isSure)
        let rig = SceneSubject(noun: "oil rig", probability: 0.33)
        var facts = PhotoFacts(subject: rig, monthAndYear: "May 2021", colors: ["blue"])
        var (caption, altText, _) = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(caption == "Possibly an oil rig, May 2021.")
        #expect(altText == "Possibly an oil rig.")
        facts.text = [TextLine(text: "Praia da Luz", confidence: 0.97, x: 0.1, y: 0.1, width: 0.5, height: 0.1)]
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).altText == "Possibly an oil rig. Text in the photo reads \"Praia da Luz\".")
        facts = PhotoFacts(names: ["Ana", "Ben"], faceCount: 2, subject: SceneSubject(noun: "fence", probability: 0.45))
        (caption, altText, _) = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(caption == "Ana and Ben, possibly with a fence." && altText == caption)
        facts = PhotoFacts(subject: SceneSubject(noun: "web site", probability: 0.4), kind: .screenshot)
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "A screenshot, possibly of a web site.")
        facts = PhotoFacts(subject: SceneSubject(noun: "coffee", probability: 0.5, isMassNoun: true), kind: .blackAndWhite)
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "Possibly coffee, in black and white.")
        // Sure: said plainly.
        facts = PhotoFacts(names: ["Ana", "Ben"], faceCount: 2, subject: SceneSubject(noun: "fence", probability: 0.6))
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "Ana and Ben with a fence.")
    }

    @Test("the on-device description: names from the metadata and the rest counted, the subject, place and month, the text quoted; an alt text of its own within 125 characters; the extended description adds and never repeats")
    func onDeviceDescription() throws {
        let dog = SceneSubject(noun: "dog", probability: 0.9)
        var facts = PhotoFacts(names: ["Ana"], faceCount: 3, subject: dog, place: "Porto, Portugal", monthAndYear: "July 2019", colors: ["blue", "tan"])
        facts.text = [TextLine(text: "Praia da Luz", confidence: 0.97, x: 0.1, y: 0.1, width: 0.5, height: 0.1),
                      TextLine(text: "xq", confidence: 0.99, x: 0.1, y: 0.3, width: 0.1, height: 0.05),   // too short to quote
                      TextLine(text: "Gelados", confidence: 0.6, weakestCharacter: 0.3, x: 0.1, y: 0.5, width: 0.3, height: 0.05)]  // not sure enough
        var (caption, altText, extended) = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(caption == "Ana and two other people with a dog in Porto, Portugal, July 2019. Text in the photo reads \"Praia da Luz\".")
        #expect(altText == "Ana and two other people with a dog in Porto, Portugal. Text in the photo reads \"Praia da Luz\".")
        #expect(extended == "Taken July 2019. Three faces in all. Mostly blue and tan.", "only what the alt text leaves out")
        // Nobody named: counted, never named; no subject: no guess.
        facts = PhotoFacts(faceCount: 2, colors: ["red"])
        (caption, altText, _) = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(caption == "Two people." && altText == "Two people.")
        facts = PhotoFacts(subject: SceneSubject(noun: "hay", probability: 0.8, isMassNoun: true))
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "Hay.")
        // Nothing recognised: the light and colours in a reader's words, never the program talking about itself.
        facts = PhotoFacts(isDark: true, colors: ["blue"])
        let unknown = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(unknown.caption == "A dark picture in blue." && unknown.altText == unknown.caption && unknown.extended == nil)
        facts = PhotoFacts(colors: ["grey", "white"], kind: .blackAndWhite)
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "A black-and-white picture.")
        facts = PhotoFacts(subject: SceneSubject(noun: "dog", probability: 0.9), kind: .blackAndWhite)
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "A dog, in black and white.")
        // Where, when the scene model is sure of a place.
        facts.kind = nil
        facts.setting = "by the sea"
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "A dog by the sea.")
        facts = PhotoFacts(faceCount: 2, place: "Porto, Portugal")
        facts.setting = "in a bookshop"
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "Two people in a bookshop in Porto, Portugal.")
        facts = PhotoFacts(colors: ["green"])
        facts.setting = "in the mountains"
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).caption == "A scene in the mountains.")
        // Many lines: the alt text keeps the most prominent that fit 125 characters, the extended description all of them.
        facts = PhotoFacts(subject: SceneSubject(noun: "menu", probability: 0.9))
        facts.text = (1...8).map { TextLine(text: "Dish number \($0) with a long name", confidence: 0.97, x: 0, y: Double($0) / 10, width: 0.5, height: $0 == 1 ? 0.09 : 0.04) }
        (caption, altText, extended) = DescriptionComposer.compose(facts, legibility: Self.legibility)
        #expect(altText.count <= DescriptionComposer.altTextTarget)
        #expect(altText.hasPrefix("A menu. Text in the photo reads \"Dish number 1 with a long name\""), "\(altText)")
        #expect(!altText.contains("Dish number 2"), "fine print (under half the tallest line) stays out of the alt text")
        // Text and nothing else known: the text is the description.
        var page = PhotoFacts(colors: ["white"])
        page.text = [TextLine(text: "Region-based segmentation", confidence: 0.99, x: 0, y: 0.1, width: 0.7, height: 0.1),
                     TextLine(text: "Let us first determine markers", confidence: 0.95, x: 0, y: 0.3, width: 0.9, height: 0.09)]
        let described = DescriptionComposer.compose(page, legibility: Self.legibility)
        #expect(described.caption == "Text: \"Region-based segmentation\" and \"Let us first determine markers\".")
        #expect(described.altText == described.caption)
        #expect(described.extended == "Mostly white.")
        // A page: said as such, its text quoted after.
        page.kind = .printedPage
        #expect(DescriptionComposer.compose(page, legibility: Self.legibility).caption
                == "A printed page. Text in the photo reads \"Region-based segmentation\" and \"Let us first determine markers\".")
        page = PhotoFacts(colors: ["white"], kind: .handwrittenPage)
        #expect(DescriptionComposer.compose(page, legibility: Self.legibility).caption == "A handwritten page.")
        #expect(caption.components(separatedBy: "Dish number").count - 1 == 5)
        // The extended description quotes the lines the alt text left out, and none it holds.
        let inAlt = altText.components(separatedBy: "Dish number").count - 1
        #expect(extended.map { $0.components(separatedBy: "Dish number").count - 1 } == 8 - inAlt)
        // Misread and partly legible lines: never in the caption or the alt text; the partly legible marked in the extended description.
        var sign = PhotoFacts(subject: SceneSubject(noun: "sign", probability: 0.9))
        sign.text = [TextLine(text: "Praia da Luz", confidence: 0.97, weakestCharacter: 0.9, x: 0, y: 0, width: 0.5, height: 0.1),
                     TextLine(text: "Gelados Miek", confidence: 0.9, weakestCharacter: 0.6, x: 0, y: 0.2, width: 0.5, height: 0.1),
                     TextLine(text: "PIc TURESf", confidence: 0.95, weakestCharacter: 0.9, x: 0, y: 0.4, width: 0.5, height: 0.1)]
        let signed = DescriptionComposer.compose(sign, legibility: Self.legibility)
        #expect(signed.caption == "A sign. Text in the photo reads \"Praia da Luz\".")
        #expect(!signed.altText.contains("Miek") && !signed.altText.contains("PIc"))
        #expect(signed.extended == "Partly legible: \"Gelados Miek\".")
        // Never over 250 characters, whatever the metadata holds.
        facts = PhotoFacts(names: [String(repeating: "Maximiliana ", count: 40)], faceCount: 1)
        #expect(DescriptionComposer.compose(facts, legibility: Self.legibility).altText.count <= DescriptionComposer.altTextLimit)
        for text in [caption, altText, extended ?? ""] {
            #expect(!text.lowercased().contains("photo of") && !text.lowercased().contains("image of") && !text.contains("\n") && !text.contains("**"))
            #expect(text.last.map { ".!?…\"".contains($0) } == true)
        }
    }

    @Test("detail: a flat picture has none, a checkerboard much; a generated landscape falls under the scene gate, a real photo over it")
    func pictureDetail() throws {
        #expect(PictureDetail.measure(try Self.image(width: 40, height: 30) { _, _ in RGBAColor(red: 90, green: 140, blue: 200) }) == 0)
        let checkerboard = try Self.image(width: 40, height: 30) { x, y in (x + y) % 2 == 0 ? RGBAColor(red: 0, green: 0, blue: 0) : RGBAColor(red: 255, green: 255, blue: 255) }
        #expect(PictureDetail.measure(checkerboard) > 1000)
        #expect(PictureDetail.measure(try Self.image(width: 2, height: 2) { _, _ in RGBAColor(red: 0, green: 0, blue: 0) }) == 0, "too small to measure")
        for seed in [UInt64(100), 101, 102] {
            let drawn = try SyntheticPhoto.landscape(width: 1600, height: 1200, seed: seed).resized(fittingLongSide: PictureDetail.sampleSize)
            #expect(PictureDetail.measure(drawn) < PictureDetail.minimumForScene)
        }
        let photo = try ImageDecoder.thumbnail(contentsOf: VisionModels.installed.folder + "/photos/chelsea.png", maxPixelSize: PictureDetail.sampleSize)
        #expect(PictureDetail.measure(photo) >= PictureDetail.minimumForScene)
    }

    @Test("a generated landscape's stripes read as a picket fence to the scene model, and the description does not say so; a real photo keeps its subject")
    func noSubjectWithoutDetail() throws {
        let vision = try IndexVision.describing(threads: 1)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let drawn = folder + "/drawn.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 1600, height: 1200, seed: 100), to: drawn, as: .jpeg())
        let described = try PhotoFacts.describe(path: drawn, vision: vision)
        let seen = try #require(described.sight?.scene?.subject, "the scene model names something in the drawn landscape")
        #expect(described.facts.subject == nil && described.facts.setting == nil)
        #expect(try #require(described.facts.detail) < PictureDetail.minimumForScene)
        for text in [described.caption, described.altText, described.extendedDescription ?? ""] {
            #expect(!text.lowercased().contains(seen.noun.lowercased()), "\(text)")
        }
        #expect(described.facts.modelsUsed.contains("scene"), "the model ran; its words were not used")
        let cat = try PhotoFacts.describe(path: VisionModels.installed.folder + "/photos/chelsea.png", vision: vision)
        #expect(cat.facts.subject?.noun == "cat" && cat.caption.hasPrefix("A cat"))
    }

    @Test("a page photographed in room light is grey, and still a page: paper is judged against the picture's own white")
    func greyPaper() throws {
        // Paper at value 0.55 (a phone's photo of a page indoors) with dark lines of writing on it.
        let grey = try Self.image(width: 64, height: 48) { _, y in
            y % 8 == 4 ? RGBAColor(red: 40, green: 40, blue: 40) : RGBAColor(red: 140, green: 140, blue: 138)
        }
        #expect(ColorNames.paperAndColour(in: grey).paper > 0.8)
        // The same picture with no white to speak of (under 0.45) is dark, not a page.
        let dark = try Self.image(width: 64, height: 48) { _, y in
            y % 8 == 4 ? RGBAColor(red: 10, green: 10, blue: 10) : RGBAColor(red: 100, green: 100, blue: 100)
        }
        #expect(ColorNames.paperAndColour(in: dark).paper == 0)
        // A bright picture keeps the fixed threshold (0.6): mid-grey under a white sky is not paper.
        let sky = try Self.image(width: 64, height: 48) { _, y in
            y < 12 ? RGBAColor(red: 250, green: 250, blue: 250) : RGBAColor(red: 130, green: 130, blue: 130)
        }
        #expect(abs(ColorNames.paperAndColour(in: sky).paper - 0.25) < 0.01)
    }

    @Test("the installed pages: a printed page is quoted line by line; handwriting the detector sees only faintly is a handwritten page, with no text")
    func installedPages() throws {
        let vision = try IndexVision.describing(threads: 1)
        let printed = try PhotoFacts.describe(path: VisionModels.installed.folder + "/photos/page.png", vision: vision)
        #expect(printed.facts.kind == .printedPage && printed.altText == "A printed page. Text in the photo reads \"Region-based segmentation\".",
                "\(printed.altText)")
        #expect(printed.extendedDescription?.contains("\"Let us first determine markers of the coins and the\"") == true, "a page's lines are quoted one by one")
        // Handwritten maths on grey paper, 448 x 172 pixels: PP-OCRv6's detector is sure of no line
        // (0.3 to 0.5), so its lines come back unread. They show a page; nothing is quoted.
        let written = try PhotoFacts.describe(path: VisionModels.installed.folder + "/photos/text.png", vision: vision)
        let seen = written.sight?.text ?? []
        #expect(seen.count >= PictureKind.minPageLines && seen.allSatisfy { $0.text.isEmpty && $0.confidence == 0 }, "\(seen)")
        #expect(written.facts.text.isEmpty, "the facts keep only what was read")
        #expect(written.facts.kind == .handwrittenPage && written.altText == "A handwritten page." && !written.caption.contains("\""),
                "\(written.caption)")
        #expect(written.extendedDescription.map { !$0.contains("legible") } ?? true, "no partly legible text from lines never read")
        // A reader not asked for faint lines (the indexer's) finds nothing on it.
        let indexer = try PaddleTextReader(models: .installed)
        #expect(try indexer.readText(in: try ImageDecoder.decode(contentsOf: VisionModels.installed.folder + "/photos/text.png")).isEmpty)
    }

    @Test("names a person confirmed in the photo index are used; a face the clustering named from other photos' metadata is not")
    func namesFromTheIndex() throws {
        let folder = try temporaryFolder("facts-index")
        let photo = folder + "/ana.jpg"
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 4), to: photo, as: .jpeg())
        let index = try PhotoIndexDatabase(path: folder + "/index.sqlite")
        func indexed(_ id: String, path: String, face axis: Int) -> IndexedPhoto {
            var embedding = [Float](repeating: 0, count: 128)
            embedding[axis] = 1
            return IndexedPhoto(id: id, path: path, size: 1, modified: Date(), imageHash: id, kind: .jpeg, takenAt: nil, utcOffset: nil, dateTrusted: false,
                                latitude: nil, longitude: nil, place: nil, width: 320, height: 240, orientation: 1, keywords: [], people: [],
                                faces: [FaceBox(name: nil, x: 0.4, y: 0.3, width: 0.2, height: 0.3, confidence: 0.9, embedding: embedding)],
                                quality: 0.8, perceptualHash: nil, rating: nil, favorite: false, embedding: nil, error: nil)
        }
        // Three photos of one face make a person; the described photo is one of them.
        try index.write { db in
            try PhotoIndexDatabase.save(indexed("a", path: SystemPath.normalized(FileSystem.absolutePath(photo)), face: 0), at: Date(), in: db)
            for other in ["b", "c"] { try PhotoIndexDatabase.save(indexed(other, path: folder + "/\(other).jpg", face: 0), at: Date(), in: db) }
        }
        _ = try PeopleClustering(database: index).update()
        let person = try #require(try index.people().first)
        #expect(try PhotoFacts.gather(path: photo, metadata: nil, vision: nil, index: index).names.isEmpty, "no one named yet")
        try index.name(person: person.id, "Ana")
        let facts = try PhotoFacts.gather(path: photo, metadata: nil, vision: nil, index: index)
        #expect(facts.names == ["Ana"])
        #expect(DescriptionComposer.compose(facts).caption.hasPrefix("Ana"))
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

/// A run processes what it was asked for (issue 31, items 8 and 9).
@Suite("A run's own photos")
struct RunScopeTests {
    @Test("a run that cannot start queues nothing; photos an earlier run left wait for a run with no paths; an old failure is not this run's")
    func scope() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a", "b"] { try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true) }
        let a1 = try makeCameraJPEG(in: folder + "/a", name: "1.jpg"), a2 = try makeCameraJPEG(in: folder + "/a", name: "2.jpg", seed: 2)
        let b1 = try makeCameraJPEG(in: folder + "/b", name: "1.jpg", seed: 3)
        let database = try CaptionDatabase(path: folder + "/memora.sqlite")
        let refused = try LoopbackModelServer.refusedURL()
        let noModel = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString])
        let basic = CaptionConfiguration(mode: .onDevice, environment: ["MEMORA_OLLAMA_URL": refused.absoluteString], fallback: .basic)
        // No model and no fallback: the run says so and queues nothing.
        await #expect { _ = try await CaptionJob(database: database, models: .configured(noModel), ignoresConstraints: true).run(paths: [folder + "/a"]) }
            throws: { ($0 as? MemoraError)?.code == .noModel }
        #expect(try ProcessingQueue(database: database).items().isEmpty)
        // Photos of folder a left in the queue (an earlier run stopped) are not captioned by a run on folder b.
        _ = try GalleryScanner(database: database).scan([folder + "/a"], explicit: true, force: false)
        let runB = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [folder + "/b"])
        #expect(runB.summary.captioned == 1 && runB.photos.map(\.path) == [ProcessingQueue.assetID(for: b1)])
        #expect(try MetadataReader.read(contentsOf: a1).captions.caption == nil, "folder a was not asked for")
        // A run with no paths works the queue: folder a now.
        let queued = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [])
        #expect(queued.summary.captioned == 2 && Set(queued.photos.map(\.path)) == Set([a1, a2].map(ProcessingQueue.assetID(for:))))
        // One truncated photo fails; a later run on other photos does not count it; once it is deleted it leaves the queue.
        let broken = folder + "/broken.jpg"
        try Data(try Data(contentsOf: URL(fileURLWithPath: b1)).prefix(400)).write(to: URL(fileURLWithPath: broken))
        let failing = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [broken])
        #expect(failing.failures.count == 1)
        let c1 = try makeCameraJPEG(in: folder + "/b", name: "2.jpg", seed: 4)
        let later = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [c1])
        #expect(later.failures.isEmpty && later.summary.captioned == 1)
        try FileManager.default.removeItem(atPath: broken)
        _ = try await CaptionJob(database: database, models: .configured(basic), ignoresConstraints: true).run(paths: [])
        #expect(try ProcessingQueue(database: database).items(status: .failed).isEmpty, "a deleted photo leaves the queue")
    }
}
