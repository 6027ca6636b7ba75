import Foundation
import ImageKit
import MemoraHub
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import TestSupport

/// The hub's dashboard in a real browser: headless Chromium loads it, a screenshot is checked for what
/// the page should show, axe-core checks accessibility, and Tab reaches the skip link first.
@Suite("Memory Palace dashboard")
struct HubDashboardTests {
    /// What scripts/dashboard-check.py reports.
    struct BrowserReport: Decodable {
        struct Picture: Decodable { let alt: String?; let loaded: Bool; let src: String? }
        struct Focus: Decodable { let tag: String; let text: String; let href: String? }
        struct Axe: Decodable {
            struct Violation: Decodable { let id: String; let impact: String?; let help: String; let nodes: Int }
            let violations: [Violation]?
            let passes: Int?
            let version: String?
            let error: String?
        }
        /// With `play`: whether the page's player played and sought to its middle.
        struct Player: Decodable {
            let played: Bool?
            let playedTo: Double?
            let seeked: Bool?
            let seekedTo: Double?
            let duration: Double?
            let error: String?
        }
        let title: String
        let images: [Picture]
        let focus: [Focus]
        let axe: Axe
        let player: Player?
    }

    /// ``browseBlocking(_:screenshot:)`` on a thread of its own (`BlockingWork`): the hub runs in this test
    /// process, so a thread of Swift's cooperative pool must never wait for the browser that talks to it.
    static func browse(_ url: URL, screenshot: String, click: String? = nil, play: Bool = false) async throws -> BrowserReport {
        try await BlockingWork.waiting.run { () throws -> BrowserReport in try browseBlocking(url, screenshot: screenshot, click: click, play: play) }
    }

    static func browseBlocking(_ url: URL, screenshot: String, click: String?, play: Bool) throws -> BrowserReport {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/dashboard-check.py").standardized.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, url.absoluteString, screenshot] + (click.map { [$0] } ?? []) + (play ? ["--play"] : [])
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw APIError(code: "browser", message: "the browser check failed (Debian's chromium and chromedriver, and scripts/install-browser-check.sh, which make test runs): \(message.suffix(2000))")
        }
        return try JSONDecoder().decode(BrowserReport.self, from: data)
    }

    @Test("the dashboard (opened with its key) shows the latest memories with thumbnails and people, each person's memories, and a pairing QR code on request; accessible and keyboard-navigable")
    func dashboard() async throws {
        let folder = try temporaryFolder("hub-dashboard")
        let server = try await TestServer(folder: folder + "/server")
        try await withAsyncCleanup {
            let hub = try await server.pairedClient(folder)
            let ana = try await hub.addPerson(name: "Ana", relationship: "daughter")
            _ = try await hub.addPerson(name: "Rui <grandpa>")
            let portrait = folder + "/ana.jpg"
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 300, height: 300, seed: 12), to: portrait, as: .jpeg())
            _ = try await hub.setAvatar(person: ana.id, image: portrait)
            // A photo of one strong colour, so the screenshot shows whether its thumbnail is on the page.
            let photo = folder + "/red.jpg"
            try ImageEncoder.write(try Image(width: 800, height: 600, fill: RGBAColor(red: 220, green: 20, blue: 30)), to: photo, as: .jpeg())
            _ = try await hub.upload(MemoryUpload(kind: .photo, title: "Ana's red coat", description: "Ana in her red coat at the harbour",
                                                  people: [ana.id], faces: [FaceTag(x: 0.4, y: 0.2, width: 0.2, height: 0.3, personId: ana.id)]), file: photo)
            _ = try await hub.upload(MemoryUpload(kind: .text, title: "Sunday lunch", description: "Grandma's soup <recipe> & bread"))

            // The key in the address once; the browser keeps it in the cookie the redirect sets.
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let keyed = URL(string: server.url.absoluteString + "/?key=\(key)")!
            let screenshot = folder + "/dashboard.png"
            let report = try await Self.browse(keyed, screenshot: screenshot)
            #expect(report.title == "Memory Palace")
            // Every image has alt text and loaded: the thumbnail's alt is the memory's description; Ana's avatar,
            // beside her name, is decorative (empty alt).
            #expect(report.images.map(\.alt) == ["Ana in her red coat at the harbour", ""], "\(report.images)")
            #expect(report.images.allSatisfy { $0.loaded }, "\(report.images)")
            // Keyboard: Tab reaches the skip link first, then the navigation.
            #expect(report.focus.first?.text == "Skip to the content" && report.focus.first?.href == "#main", "\(report.focus)")
            #expect(report.focus.dropFirst().first?.text == "Latest memories", "\(report.focus)")
            // axe-core: no violation at all (WCAG 2.1 A and AA, best practices).
            #expect(report.axe.error == nil, "\(report.axe.error ?? "")")
            #expect(report.axe.violations?.isEmpty == true, "\(report.axe.violations ?? [])")
            #expect((report.axe.passes ?? 0) > 10)

            // The screenshot shows the thumbnail (a block of its red); no QR code until one is asked for.
            let (red, black) = try Self.count(screenshot)
            #expect(red > 5000, "the thumbnail's red covers \(red) sampled pixels")
            #expect(black < 500, "\(black) sampled black pixels: a QR code on a page view")

            // The button makes a pairing code: the page it leads to shows the QR code (black modules on white).
            let pairing = try await Self.browse(keyed, screenshot: folder + "/pair.png", click: "#pair-button")
            #expect(pairing.title == "Pair a device: Memory Palace")
            #expect(pairing.axe.violations?.isEmpty == true, "\(pairing.axe.violations ?? [])")
            #expect(try Self.count(folder + "/pair.png").black > 2000, "the QR code is missing")

            // The page's HTML: the names escaped; the pairing code's JSON works once with `memora hub pair`.
            let transport = URLSessionTransport()
            let cookie = ["Cookie": "memora_dashboard=\(try await ServerData.open(folder + "/server").newDashboardSession())"]
            let page = try await transport.send(HTTPRequest(method: "GET", url: server.url, headers: cookie))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Rui &lt;grandpa&gt;") && !html.contains("Rui <grandpa>"))
            #expect(html.contains("Grandma&#39;s soup &lt;recipe&gt; &amp; bread"))
            #expect(!html.contains("authToken"))
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            let pairPage = try await transport.send(HTTPRequest(method: "POST", url: server.url.appendingPathComponent("dashboard/pair"), headers: cookie))
            let pairHTML = String(decoding: pairPage.body, as: UTF8.self)
            let start = try #require(pairHTML.range(of: "memora hub pair '")), end = try #require(pairHTML.range(of: "'</code>", range: start.upperBound..<pairHTML.endIndex))
            let json = String(pairHTML[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            let second = try await HubClient.pair(try PairingCode(qrText: json), credentials: SyncCredentialFile(path: folder + "/second.json"))
            #expect(try await second.people().count == 2)

            // Ana's page lists her memory.
            let anaPage = try await Self.browse(URL(string: server.url.absoluteString + "/people/\(ana.id)?key=\(key)")!, screenshot: folder + "/ana.png")
            #expect(anaPage.title == "Ana: Memory Palace" && anaPage.images.count == 1)
            #expect(anaPage.axe.violations?.isEmpty == true, "\(anaPage.axe.violations ?? [])")
        } cleanup: {
            await server.stop()
        }
    }

    /// Sampled (every second pixel) strong red and black pixels of a screenshot.
    static func count(_ screenshot: String) throws -> (red: Int, black: Int) {
        let image = try ImageDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: screenshot))))
        #expect(image.width == 1280)
        var red = 0, black = 0
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in stride(from: 0, to: image.width, by: 2) {
                let pixel = image.pixel(x: x, y: y)
                if pixel.red > 180 && pixel.green < 70 && pixel.blue < 80 { red += 1 }
                if pixel.red < 20 && pixel.green < 20 && pixel.blue < 20 { black += 1 }
            }
        }
        return (red, black)
    }

    @Test("from another machine the dashboard needs its key, which then stays in an HttpOnly cookie",
          .enabled(if: NetworkAddress.localIPv4() != nil, "this machine has no network but the loopback: no other address to ask from"))
    func dashboardKey() async throws {
        let address = try #require(NetworkAddress.localIPv4())
        let folder = try temporaryFolder("hub-dashboard-key")
        let server = try await TestServer(folder: folder + "/server", host: "0.0.0.0")
        try await withAsyncCleanup {
            let key = try await ServerData.open(folder + "/server").dashboardKey
            let base = URL(string: "http://\(address):\(server.port)")!
            let transport = URLSessionTransport()
            let refused = try await transport.send(HTTPRequest(method: "GET", url: base))
            #expect(refused.status == 401)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("memora-server dashboard"))
            let wrong = try await transport.send(HTTPRequest(method: "GET", url: URL(string: "\(base.absoluteString)/?key=wrong")!))
            #expect(wrong.status == 401)
            let thumbnail = try await transport.send(HTTPRequest(method: "GET", url: base.appendingPathComponent("dashboard/thumbnails/1")))
            #expect(thumbnail.status == 401)
            // The key itself is not a cookie: the session the key opens is (URLSession follows the redirect and keeps no cookies).
            #expect(try await transport.send(HTTPRequest(method: "GET", url: base, headers: ["Cookie": "memora_dashboard=\(key)"])).status == 401)
            let session = try await ServerData.open(folder + "/server").newDashboardSession()
            let admitted = try await transport.send(HTTPRequest(method: "GET", url: base, headers: ["Cookie": "memora_dashboard=\(session)"]))
            #expect(admitted.status == 200 && String(decoding: admitted.body, as: UTF8.self).contains("<h1>Memory Palace</h1>"))
        } cleanup: {
            await server.stop()
        }
    }
}
