internal import Foundation
internal import MemoraHub
internal import MemoraSync
internal import MemoraServer
internal import MemoraSystem
package import PhotoVisionCore

/// The Memory Palace part of `make demo`: a hub on loopback (SQLite in `folder/hub`), a device paired
/// from the QR code's JSON, two people, a photo memory whose face the device found and tagged, a voice
/// note and a text memory; then screenshots of the dashboard and of the voice note's page, with its
/// player, in headless Chromium.
package enum HubDemo {
    /// What the demo did.
    package struct Report: Sendable, Codable {
        /// The hub's address during the demo.
        package var hub: String
        /// What happened, one line per step.
        package var steps: [String]
        /// The dashboard's screenshot, when Chromium is installed.
        package var screenshot: String?
        /// Why there is no screenshot.
        package var screenshotNote: String?
        /// The voice memory's page with its player, when Chromium is installed.
        package var memoryScreenshot: String?
    }

    /// Runs the demo in `folder` (replaced), with `photo` as the photo memory and `faceAnalyzer` looking for its faces.
    package static func run(folder: String, photo: String, faceAnalyzer: (any FaceAnalyzing)?) async throws -> Report {
        try? FileManager.default.removeItem(atPath: folder)
        let data = try await ServerData.open(folder + "/hub")
        var configuration = ServerConfiguration(joinCode: data.joinCode)
        configuration.port = 0
        configuration.logger.logLevel = .critical
        let running = try await SyncServer(configuration: configuration, data: data).start()
        return try await withAsyncCleanup {
            var steps: [String] = []

            // The QR code's JSON, as a phone's camera would read it.
            let code = try await data.pairingCode(host: "127.0.0.1", port: running.port)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let qr = String(decoding: try encoder.encode(code), as: UTF8.self)
            let hub = try await HubClient.pair(try PairingCode(qrText: qr), credentials: SyncCredentialFile(path: folder + "/device/hub.json"))
            steps.append("paired a device from the QR code's JSON (a single-use token, now spent)")
            let collector = MemoryCollector(hub: hub, folder: folder + "/device", faceAnalyzer: faceAnalyzer)
            let ana = try await hub.addPerson(name: "Ana", relationship: "daughter")
            let rui = try await hub.addPerson(name: "Rui", relationship: "grandfather")
            steps.append("added Ana (daughter) and Rui (grandfather)")

            let prepared = try collector.prepare(photo: photo)
            let found = prepared.faces.count
            collector.discard(prepared)
            let photoOutcome = try await collector.addPhoto(photo, metadata: MemoryUpload(
                kind: .photo, title: "Ana at the launch pad", description: "Ana in her flight suit before the launch, smiling",
                takenAt: 1_563_120_000_000), tags: found > 0 ? [0: ana.id] : [:])
            if case .uploaded(let memory, _) = photoOutcome {
                steps.append("photo memory \(memory.id): \(found) face(s) found on the device, \(memory.faces.filter { $0.personId == ana.id }.count) tagged Ana; "
                             + "thumbnail made by the hub")
            }
            let voice = folder + "/device/grandpa-story.wav"
            try toneWAV(seconds: 2).write(to: URL(fileURLWithPath: voice))
            var voicePage: String?
            if case .uploaded(let memory, _) = try await collector.add(MemoryUpload(kind: .voice, title: "Grandpa's story about the harbour", people: [rui.id]), file: voice) {
                steps.append("voice memory \(memory.id): \(memory.size) bytes of \(memory.mediaType), with Rui")
                voicePage = "/memories/\(memory.id)"
            }
            if case .uploaded(let memory, _) = try await collector.add(MemoryUpload(
                kind: .text, title: "Sunday soup", description: "Grandma's soup: onions, potatoes, kale; an hour on a low fire.", people: [rui.id, ana.id]), file: nil) {
                steps.append("text memory \(memory.id), with Rui and Ana")
            }
            let listed = try await hub.memories()
            steps.append("the hub lists \(listed.memories.count) memories; Ana is in \(try await hub.memories(person: ana.id).memories.count)")

            guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first(where: FileManager.default.isExecutableFile) else {
                return Report(hub: running.url.absoluteString, steps: steps, screenshot: nil, screenshotNote: "Chromium is not installed (scripts/install-deps.sh installs it)")
            }
            /// A screenshot of the page at `path` (opened with the dashboard key), nil when Chromium could not take it.
            func screenshot(_ path: String, to file: String) async -> String? {
                let arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,1500",
                                 "--user-data-dir=\(folder)/device/chromium", "--screenshot=\(file)", running.url.absoluteString + path + "?key=\(data.dashboardKey)"]
                // The browser is waited for on a thread of its own: the hub it loads runs on this process's cooperative threads.
                let outcome = await BlockingWork.waiting.run { try? ChildProcess.run(chromium, arguments, environment: ["HOME": folder + "/device"]) }
                return outcome?.status == 0 && FileSystem.exists(file) ? file : nil
            }
            guard let dashboard = await screenshot("/", to: folder + "/dashboard.png") else {
                return Report(hub: running.url.absoluteString, steps: steps, screenshot: nil, screenshotNote: "Chromium could not take the screenshot")
            }
            var memoryScreenshot: String?
            if let voicePage { memoryScreenshot = await screenshot(voicePage, to: folder + "/memory-page.png") }
            return Report(hub: running.url.absoluteString, steps: steps, screenshot: dashboard, screenshotNote: nil, memoryScreenshot: memoryScreenshot)
        } cleanup: {
            await running.stop()
        }
    }

    /// A voice note stand-in: a WAV file of a soft 440 Hz tone (16 kHz, 16-bit mono).
    static func toneWAV(seconds: Int) -> Data {
        let rate = 16_000, count = rate * seconds
        var data = Data("RIFF".utf8)
        func le32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func le16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        le32(36 + count * 2)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        le32(16); le16(1); le16(1); le32(rate); le32(rate * 2); le16(2); le16(16)
        data.append(contentsOf: Array("data".utf8))
        le32(count * 2)
        for index in 0..<count {
            let sample = Int16(3000 * sin(2 * Double.pi * 440 * Double(index) / Double(rate)))
            withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }
}
