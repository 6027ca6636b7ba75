import MemoraSystem
import Foundation
import ImageKit
import MetadataKit
import Testing
@testable import MemoraCore
import MemoraTesting
import TestSupport

/// The durable queue, the one-photo pipeline, the audit trail and rollback, on a real
/// SQLite file and real JPEGs.
@Suite("Queue, pipeline and history")
struct QueueAndPipelineTests {
    struct Fixture {
        let folder: String
        let database: CaptionDatabase
        var queue: ProcessingQueue { ProcessingQueue(database: database) }
        var history: PhotoHistory { PhotoHistory(database: database) }

        init(clock: any MemoraClock = SystemClock()) throws {
            folder = try temporaryFolder()
            database = try CaptionDatabase(path: folder + "/memora.sqlite", clock: clock)
        }

        func photo(_ name: String, seed: UInt64 = 1) throws -> String {
            try makeCameraJPEG(in: folder, name: name, seed: seed)
        }

        func pipeline(_ selector: ModelSelector? = nil, maxRetries: Int = 3, replacesExisting: Bool = false) -> CaptionPipeline {
            CaptionPipeline(database: database, selector: selector ?? ModelSelector(mode: .onDevice, clock: ManualClock()), maxRetries: maxRetries,
                            replacesExisting: replacesExisting)
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test("the queue is stamped with the database's clock, not the system's")
    func stampedWithClock() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        let fixture = try Fixture(clock: clock)
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        #expect(try fixture.queue.enqueue(path: photo))
        let queued = try #require(try fixture.queue.item(forPath: photo))
        #expect(queued.createdAt == clock.now() && queued.updatedAt == clock.now())
        clock.advance(by: .seconds(90))
        let claimed = try #require(try fixture.queue.claimNext())
        #expect(claimed.createdAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(claimed.updatedAt == clock.now())
    }

    @Test("enqueueing is idempotent per asset, and a symlink is the same asset")
    func idempotentEnqueue() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        try FileManager.default.createSymbolicLink(atPath: fixture.folder + "/link.jpg", withDestinationPath: photo)
        #expect(try fixture.queue.enqueue(path: photo))
        #expect(try !fixture.queue.enqueue(path: photo))
        #expect(try !fixture.queue.enqueue(path: fixture.folder + "/link.jpg"))
        #expect(try fixture.queue.counts()[.pending] == 1)
    }

    @Test("claiming is atomic: concurrent workers never get the same item")
    func atomicClaims() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        for index in 0..<40 { try fixture.queue.enqueue(path: fixture.folder + "/p\(index).jpg") }
        let queue = fixture.queue
        let claimed = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var mine: [String] = []
                    while let item = try? queue.claimNext() { mine.append(item.id) }
                    return mine
                }
            }
            var all: [String] = []
            for await ids in group { all += ids }
            return all
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
        #expect(try fixture.queue.counts()[.processing] == 40)
    }

    @Test("failures go back to pending until the maximum, then failed with the last error; retry-failed puts them back")
    func failuresAndRetry() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.queue.enqueue(path: fixture.folder + "/x.jpg")
        for attempt in 1...3 {
            let item = try #require(try fixture.queue.claimNext())
            let status = try fixture.queue.fail(item.id, error: "error \(attempt)", maxRetries: 3)
            #expect(status == (attempt < 3 ? .pending : .failed))
        }
        let failed = try #require(try fixture.queue.items(status: .failed).first)
        #expect(failed.errorMessage == "error 3" && failed.retryCount == 3)
        #expect(try fixture.queue.retryFailed() == 1)
        #expect(try fixture.queue.items(status: .pending).first?.retryCount == 0)
    }

    @Test("the pipeline writes caption and alt text, verifies, records the history and completes")
    func captionsAPhoto() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        let pixels = try ImageDecoder.decode(contentsOf: photo)
        try fixture.queue.enqueue(path: photo)
        let outcome = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        guard case .captioned(let caption, let model) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(model == "basic:basic-description")
        let read = try MetadataReader.read(contentsOf: photo)
        #expect(read.captions.caption == caption && read.captions.xmp == caption && read.captions.exif == caption && read.captions.iptc == caption)
        #expect(read.captions.altText != nil && read.captions.altText != caption, "the basic description's alt text is its own")
        #expect(read.captions.isBasicDescription, "a basic description is marked as such in the photo")
        #expect(read.gps != nil, "the photo's own metadata is untouched")
        #expect(try ImageDecoder.decode(contentsOf: photo) == pixels)
        let entries = try fixture.history.entries(forPath: photo)
        #expect(entries.count == 1 && entries[0].caption == caption && entries[0].kind == .generated && !entries[0].wasManualEdit)
        #expect(try fixture.queue.item(forPath: photo)?.status == .completed)
    }

    @Test("a caption from before Memora is never replaced automatically, --force included, only when asked; a manual edit never")
    func existingAndManualCaptions() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        try CaptionWriter.write(CaptionUpdate(caption: "Grandma's garden in June."), to: photo)
        try fixture.queue.enqueue(path: photo)
        let skipped = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        guard case .skipped = skipped else { Issue.record("got \(skipped)"); return }
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandma's garden in June.")

        try fixture.queue.enqueue(path: photo, force: true)
        let forced = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        guard case .skipped(let forcedReason) = forced else { Issue.record("got \(forced)"); return }
        #expect(forcedReason.contains("did not write") && forcedReason.contains("--replace-existing"))
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Grandma's garden in June.")

        try fixture.queue.enqueue(path: photo, force: true)
        let replaced = await fixture.pipeline(replacesExisting: true).process(try #require(try fixture.queue.claimNext()))
        guard case .captioned = replaced else { Issue.record("got \(replaced)"); return }
        #expect(try fixture.history.original(forPath: photo)?.caption == "Grandma's garden in June.")

        try CaptionEditor(database: fixture.database).edit(path: photo, caption: "Mum and the roses, summer 2019.")
        try fixture.queue.enqueue(path: photo, force: true)
        let afterEdit = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        guard case .skipped(let reason) = afterEdit else { Issue.record("got \(afterEdit)"); return }
        #expect(reason.contains("manual"))
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == "Mum and the roses, summer 2019.")
        let entries = try fixture.history.entries(forPath: photo)
        #expect(entries.map(\.kind) == [.generated, .manual])
        #expect(entries[1].wasManualEdit)
    }

    @Test("rollback to an earlier caption, and to 0: the photo byte for byte as it was before Memora")
    func rollback() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        let original = try Data(contentsOf: URL(fileURLWithPath: photo))
        try fixture.queue.enqueue(path: photo)
        _ = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        let generated = try #require(try fixture.history.entries(forPath: photo).first?.caption)
        let editor = CaptionEditor(database: fixture.database)
        try editor.edit(path: photo, caption: "A kite festival on the hill.", altText: "Kites on a hill.")
        #expect(try MetadataReader.read(contentsOf: photo).captions.altText == "Kites on a hill.")

        let back = try editor.rollback(path: photo, to: 1)
        #expect(back.caption == generated && back.kind == .rollback && back.wasManualEdit)
        #expect(try MetadataReader.read(contentsOf: photo).captions.caption == generated)

        try editor.rollback(path: photo, to: 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == original)
        #expect(try fixture.history.entries(forPath: photo).map(\.modelUsed) == ["basic:basic-description", "manual", "rollback:1", "rollback:0"])
        #expect(throws: MemoraError.self) { try editor.rollback(path: photo, to: 9) }
        #expect(throws: MemoraError.self) { try editor.edit(path: photo, caption: "   ") }
    }

    @Test("crash recovery: an item left in processing with a recorded caption is finished without asking the model again")
    func crashRecovery() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let written = try fixture.photo("written.jpg", seed: 1)
        let unwritten = try fixture.photo("unwritten.jpg", seed: 2)
        let untouched = try fixture.photo("untouched.jpg", seed: 3)
        for photo in [written, unwritten, untouched] { try fixture.queue.enqueue(path: photo) }
        let model = ModelInfo(provider: .ollama, name: "llava", pixelsLeaveDevice: false)
        // Simulate a crash at three points: after the file write, after the intent, after the claim.
        let first = try #require(try fixture.queue.claimNext())
        try fixture.queue.recordIntent(first.id, caption: GeneratedCaption(description: "A cat on a wall.", altText: "A cat on a wall.", model: model, rawText: ""))
        try CaptionWriter.write(CaptionUpdate(caption: "A cat on a wall.", altText: "A cat on a wall."), to: written)
        let second = try #require(try fixture.queue.claimNext())
        try fixture.queue.recordIntent(second.id, caption: GeneratedCaption(description: "A dog in snow.", altText: "A dog in snow.", model: model, rawText: "",
                                                                            extendedDescription: "A dog in snow by a red gate; a sign reads 'Beware of the dog'."))
        _ = try #require(try fixture.queue.claimNext())

        #expect(try fixture.queue.recoverInterrupted() == 3)
        // No model at all may be asked for the first two: a selector with no generators would fail.
        let strict = ModelSelector(mode: .onDevice, basic: nil, clock: ManualClock())
        var outcomes: [PipelineOutcome] = []
        while let item = try fixture.queue.claimNext() { outcomes.append(await fixture.pipeline(strict, maxRetries: 1).process(item)) }
        #expect(outcomes[0] == .recovered(caption: "A cat on a wall."))
        #expect(outcomes[1] == .recovered(caption: "A dog in snow."))
        if case .failed = outcomes[2] {} else { Issue.record("the third photo needed a model: \(outcomes[2])") }
        #expect(try MetadataReader.read(contentsOf: unwritten).captions.caption == "A dog in snow.")
        #expect(try MetadataReader.read(contentsOf: unwritten).captions.extendedDescription == "A dog in snow by a red gate; a sign reads 'Beware of the dog'.",
                "the intent keeps the extended description: a photo finished after a crash gets all three texts")
        #expect(try fixture.history.entries(forPath: written).count == 1)
        #expect(try fixture.history.entries(forPath: unwritten).count == 1)
        #expect(try fixture.history.entries(forPath: untouched).isEmpty)
        #expect(try MetadataReader.read(contentsOf: untouched).captions.caption == nil)
        #expect(try fixture.database.recentErrors().first?.type == "generation")
    }

    @Test("preferences: defaults from the seed, typed updates, clear errors")
    func preferences() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let defaults = try fixture.database.preferences()
        #expect(defaults.aiMode == .onDevice && defaults.wifiOnly && !defaults.chargingOnly && defaults.autoProcessNew && !defaults.processExisting)
        try fixture.database.setPreference("ai_mode", to: "gpt-5.2")
        try fixture.database.setPreference("charging_only", to: "yes")
        let updated = try fixture.database.preferences()
        #expect(updated.aiMode == .gpt && updated.chargingOnly)
        #expect(throws: MemoraError.self) { try fixture.database.setPreference("ai_mode", to: "cloud") }
        #expect(throws: MemoraError.self) { try fixture.database.setPreference("colour", to: "blue") }
        #expect(throws: MemoraError.self) { try fixture.database.setPreference("wifi_only", to: "maybe") }
    }

    @Test("the gallery scanner follows process_existing and auto_process_new, and skips captioned photos")
    func galleryScanner() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = fixture.folder + "/library"
        try FileManager.default.createDirectory(atPath: library + "/2019", withIntermediateDirectories: true)
        let old = try makeCameraJPEG(in: library + "/2019", name: "old.jpg")
        let captioned = try makeCameraJPEG(in: library, name: "captioned.jpg", seed: 4)
        try CaptionWriter.write(CaptionUpdate(caption: "Written by a person."), to: captioned)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: library + "/notes.jpg"))
        try Data("hidden".utf8).write(to: URL(fileURLWithPath: library + "/.hidden.jpg"))
        let scanner = GalleryScanner(database: fixture.database)

        let first = try scanner.scan([library], explicit: false, force: false)
        #expect(first.photos == 2 && first.notPhotos == 1 && first.queued == 0 && first.leftByPreferences == 2)

        // A photo that appears later is new: auto_process_new (on by default) queues it.
        let later = try makeCameraJPEG(in: library, name: "new.jpg", seed: 5)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: later)
        let phone = library + "/IMG_0002.heic"  // an iPhone photo: HEIC is captioned in place too
        try ImageEncoder.write(try SyntheticPhoto.landscape(width: 96, height: 64, seed: 6), to: phone, as: .heif())
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: phone)
        let second = try scanner.scan([library], explicit: false, force: false)
        #expect(second.queued == 2)
        #expect(try fixture.queue.item(forPath: later) != nil && fixture.queue.item(forPath: phone) != nil)

        try fixture.database.setPreference("process_existing", to: "true")
        let third = try scanner.scan([library], explicit: false, force: false)
        #expect(third.queued == 2 && third.alreadyQueued == 2)
        #expect(try fixture.queue.item(forPath: old) != nil)
        // The captioned photo is queued, and the pipeline leaves it alone, remembering why.
        let pipeline = fixture.pipeline()
        while let item = try fixture.queue.claimNext() { _ = await pipeline.process(item) }
        #expect(try fixture.queue.item(forPath: captioned)?.modelUsed == "skipped:existing-caption")
        #expect(try MetadataReader.read(contentsOf: captioned).captions.caption == "Written by a person.")
        let phoneCaption = try MetadataReader.read(contentsOf: phone).captions
        #expect(phoneCaption.xmp != nil && phoneCaption.xmp == phoneCaption.exif, "the HEIC got its caption in XMP and EXIF")
    }

    @Test("a failure that cannot succeed (a read-only photo) fails the item at once instead of being tried three times")
    func finalFailureNotRetried() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let photo = try fixture.photo("a.jpg")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: photo)
        try fixture.queue.enqueue(path: photo)
        let outcome = await fixture.pipeline().process(try #require(try fixture.queue.claimNext()))
        guard case .failed(let error, let willRetry) = outcome else { Issue.record("expected a failure: \(outcome)"); return }
        #expect(!willRetry)
        #expect(error.contains("read-only") && error.components(separatedBy: photo).count == 2, "the path once: \(error)")
        #expect(try fixture.queue.items(status: .failed).count == 1)
        let failure = try #require(try fixture.queue.items(status: .failed).first?.failureDescription)
        #expect(failure.components(separatedBy: photo).count == 2, "the queue's report names the photo once: \(failure)")
        #expect(try fixture.history.entries(forPath: photo).isEmpty, "nothing was written, nothing recorded")
    }

    @Test("a photo deleted or renamed after it was queued leaves the queue instead of failing forever, with or without a recorded caption")
    func gonePhotoLeavesQueue() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let deleted = try fixture.photo("deleted.jpg", seed: 2)
        let renamed = try fixture.photo("renamed.jpg", seed: 3)
        try fixture.queue.enqueue(path: deleted)
        try fixture.queue.enqueue(path: renamed)
        try FileManager.default.removeItem(atPath: deleted)
        try FileManager.default.moveItem(atPath: renamed, toPath: fixture.folder + "/renamed-later.jpg")

        let first = try #require(try fixture.queue.claimNext())
        guard case .skipped(let reason) = await fixture.pipeline().process(first) else { Issue.record("expected a skip"); return }
        #expect(reason.contains("gone"))
        // The second had a caption recorded (a crash between the model and the write): it leaves too.
        let second = try #require(try fixture.queue.claimNext())
        try fixture.queue.recordIntent(second.id, caption: GeneratedCaption(description: "A harbour.", altText: "A harbour.",
                                                                            model: BasicDescriptionGenerator().modelInfo, rawText: "A harbour."))
        let withIntent = try #require(try fixture.queue.items(status: .processing).first)
        guard case .skipped = await fixture.pipeline().process(withIntent) else { Issue.record("expected a skip"); return }
        #expect(try fixture.queue.items().isEmpty, "both left the queue")
        #expect(try fixture.queue.counts()[.failed] == 0)
        #expect(try fixture.history.entries(forPath: deleted).isEmpty)
    }
}
