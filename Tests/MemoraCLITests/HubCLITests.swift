import Foundation
import ImageKit
import MemoraServer
import MemoraSystem
import MemoraSyncTesting
import Testing

extension CLI {
    /// `memora arguments`, waited for on a thread of its own (`BlockingWork`): the hub runs in this test
    /// process, so a thread of Swift's cooperative pool must never block on the child that talks to it.
    func runBeside(_ arguments: String...) async throws -> (status: Int32, out: String, err: String) {
        try await BlockingWork.waiting.run { () throws -> (status: Int32, out: String, err: String) in try self.run(arguments) }
    }
}

/// `memora hub` against a real hub on loopback.
@Suite("memora hub, end to end")
struct HubCLITests {
    @Test("pair from the QR JSON, people (a taken name refused), photo and text memories, listing by person, the offline outbox and flush")
    func collector() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        // Before pairing: an error that says what to do.
        let unpaired = try await cli.runBeside("hub", "memories")
        #expect(unpaired.status != 0 && unpaired.err.contains("memora hub pair"), "\(unpaired.err)")

        let server = try await LoopbackSyncServer(folder: cli.folder + "/hub")
        let code = try await ServerData.open(cli.folder + "/hub").pairingCode(host: "127.0.0.1", port: server.port)
        let json = String(decoding: try JSONEncoder().encode(code), as: UTF8.self)
        let paired = try await cli.runBeside("hub", "pair", json)
        #expect(paired.status == 0 && paired.out.contains("paired with Memory Palace at http://127.0.0.1:\(server.port)"), "\(paired)")
        let replayed = try await cli.runBeside("hub", "pair", json)
        #expect(replayed.status != 0 && replayed.err.contains("used already or expired"), "\(replayed.err)")

        #expect(try await cli.runBeside("hub", "people", "add", "Ana", "--relationship", "daughter").status == 0)
        let taken = try await cli.runBeside("hub", "people", "add", "  ANA ")
        #expect(taken.status != 0 && taken.err.contains("a person called Ana exists already on the hub"), "\(taken.err)")
        let photo = try cli.photo("beach.jpg")
        let added = try await cli.runBeside("hub", "add", "photo", photo, "--title", "Beach day", "--people", "Ana")
        #expect(added.status == 0 && added.out.contains("added memory 1, photo \"Beach day\""), "\(added)")
        let text = try await cli.runBeside("hub", "add", "text", "--title", "Recipe", "--text", "Bake for 40 minutes.")
        #expect(text.status == 0 && text.out.contains("added memory 2, text"), "\(text)")
        let again = try await cli.runBeside("hub", "add", "photo", photo, "--title", "Same bytes")
        #expect(again.status == 0 && again.out.contains("already on the hub: memory 1"), "\(again)")

        let listed = try await cli.runBeside("hub", "memories", "--json")
        let page = try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [String: Any]
        #expect((page?["memories"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Recipe", "Beach day"], "\(listed)")
        let anas = try await cli.runBeside("hub", "memories", "--person", "ana")
        #expect(anas.status == 0 && anas.out.contains("Beach day") && !anas.out.contains("Recipe"), "\(anas)")
        let people = try await cli.runBeside("hub", "people", "list")
        #expect(people.out.contains("Ana (daughter)  1 memories"), "\(people.out)")

        // The photo had no description, in the upload or its metadata: it was described on this
        // device (the on-device models), said once on stderr, and the hub has its alt text ("A picture in
        // green and blue." for this drawn landscape). With --no-describe a photo goes without; a photo's own alt text is
        // left for the hub to take, not described again.
        #expect(added.err.contains("described on this device"), "\(added.err)")
        let beach = page?["memories"].flatMap { $0 as? [[String: Any]] }?.first { $0["title"] as? String == "Beach day" }
        let said = beach?["description"] as? String ?? ""
        #expect(!said.isEmpty && said.count <= 5000 && !said.contains("Memora"), "\(said)")
        let plain = try await cli.runBeside("hub", "add", "photo", try cli.photo("plain.jpg", seed: 2), "--no-describe", "--json")
        #expect(plain.status == 0 && !plain.err.contains("described"), "\(plain)")
        let plainMemory = try JSONSerialization.jsonObject(with: Data(plain.out.utf8)) as? [String: Any]
        #expect(plainMemory?["description"] == nil || plainMemory?["description"] is NSNull, "\(plain.out)")
        let captioned = try cli.photo("captioned.jpg", seed: 3)
        #expect(try await cli.runBeside("metadata", "write", "--caption", "The garden", "--alt-text", "Grandma's garden in June", captioned).status == 0)
        let own = try await cli.runBeside("hub", "add", "photo", captioned, "--json")
        #expect(own.status == 0 && !own.err.contains("described"), "\(own)")
        let ownMemory = try JSONSerialization.jsonObject(with: Data(own.out.utf8)) as? [String: Any]
        #expect(ownMemory?["description"] as? String == "Grandma's garden in June", "\(own.out)")

        // The hub goes away: a memory waits on the device, and goes with `flush` once the hub is back.
        await server.stop()
        let queued = try await cli.runBeside("hub", "add", "text", "--title", "Offline note", "--text", "Written on the train.")
        #expect(queued.status == 0 && queued.out.contains("waits on this device (1 waiting)"), "\(queued)")
        try await server.restart()
        let flushed = try await cli.runBeside("hub", "flush")
        #expect(flushed.status == 0 && flushed.out.contains("sent 1 memory"), "\(flushed)")
        #expect(try await cli.runBeside("hub", "memories").out.contains("Offline note"))
        let removed = try await cli.runBeside("hub", "remove", "2")
        #expect(removed.status == 0)
        #expect(!(try await cli.runBeside("hub", "memories").out.contains("Recipe")))
        await server.stop()
    }
}
