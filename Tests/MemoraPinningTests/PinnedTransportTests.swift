import Foundation
import Hummingbird
import Logging
import HummingbirdTLS
import MemoraHTTP
@testable import MemoraPinning
import NIOSSL
import Testing
import TestSupport

/// Certificate pinning against real TLS on loopback: a Hummingbird server whose certificate chains
/// to a test root, reached under the cloud endpoints' own host names.
@Suite("Pinned endpoints")
struct PinnedTransportTests {
    static let gemini = "generativelanguage.googleapis.com"
    /// The server's logger: its shutdown when the test cancels it is not news.
    static let quiet: Logger = {
        var logger = Logger(label: "memora-tests.tls-server")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs a TLS server on 127.0.0.1 with the test leaf for the length of `body`, which gets its port.
    static func withServer<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(TestCertificates.leaf.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(TestCertificates.leafKey.utf8), format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        let router = Router()
        router.post("v1/hello") { request, _ -> String in
            let body = try await request.body.collect(upTo: 1 << 20)
            return "pinned: " + String(buffer: body)
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tls),
                              configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: Self.quiet)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return try await body(port)
    }

    /// A transport to the test server. The deadline is generous: in a full parallel run the face tests
    /// keep both cores busy, and a TLS handshake on loopback has waited more than 10 s for a thread.
    static func transport(_ pins: TrustPins, port: Int, host: String = gemini, timeout: Duration = .seconds(90)) -> PinnedTransport {
        PinnedTransport(pins: pins, fallback: URLSessionTransport(timeout: .seconds(90)), timeout: timeout, maximumResponseBytes: 1 << 20,
                        connectingTo: [host: "127.0.0.1"])
    }

    static func root(_ pem: String, _ name: String) -> PinnedRoot { PinnedRoot(name: name, sha256: "", pem: pem) }

    @Test("a chain that ends at the pinned root is accepted, and the answer comes back whole")
    func acceptedWhenPinned() async throws {
        try await Self.withServer { port in
            let pins = TrustPins.cloud.pinning(Self.gemini, to: [Self.root(TestCertificates.root, "Memora Test Root")])
            let response = try await Self.transport(pins, port: port).send(
                MemoraHTTP.HTTPRequest(method: "POST", url: URL(string: "https://\(Self.gemini):\(port)/v1/hello")!, body: Data("caption me".utf8)))
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "pinned: caption me")
        }
    }

    @Test("the maker a front end gives MemoraCore's caption configuration makes pinned transports with its pins and the time it is asked for")
    func maker() throws {
        let made = PinnedTransport.maker(pins: .cloud)(.seconds(42))
        let pinned = try #require(made as? PinnedTransport)
        #expect(pinned.pins == .cloud && pinned.timeout == .seconds(42))
        #expect(pinned.fallback is URLSessionTransport, "a host not pinned goes through URLSession")
        let none = try #require(PinnedTransport.maker(pins: .none)(.seconds(5)) as? PinnedTransport)
        #expect(none.pins == .none)
    }

    @Test("the roots Memora ships for Gemini refuse a chain to another root: untrusted-certificate, not retryable, long before the deadline, naming the pins and --pins")
    func refusedByTheShippedRoots() async throws {
        try await Self.withServer { port in
            let started = ContinuousClock.now
            do {
                // A deadline far away: a refusal retried until it (AsyncHTTPClient's default) would take all of it.
                _ = try await Self.transport(.cloud, port: port, timeout: .seconds(300))
                    .send(MemoraHTTP.HTTPRequest(method: "POST", url: URL(string: "https://\(Self.gemini):\(port)/v1/hello")!))
                Issue.record("a chain to an unpinned root was accepted")
            } catch let error as MemoraHTTP.HTTPError {
                #expect(error.code == .untrustedCertificate && !error.isRetryable, "\(error)")
                #expect(error.reason.contains("GTS_Root_R1") && error.reason.contains("--pins"), "\(error.reason)")
            }
            #expect(ContinuousClock.now - started < .seconds(150), "refused, not retried until the 300 s deadline")
        }
    }

    @Test("pinned to another root, or to the right root under a name the certificate does not carry: refused")
    func refusedOtherRootAndWrongName() async throws {
        try await Self.withServer { port in
            let other = TrustPins.none.pinning(Self.gemini, to: [Self.root(TestCertificates.otherRoot, "Memora Other Test Root")])
            await #expect(throws: MemoraHTTP.HTTPError.self) {
                _ = try await Self.transport(other, port: port).send(MemoraHTTP.HTTPRequest(method: "GET", url: URL(string: "https://\(Self.gemini):\(port)/v1/hello")!))
            }
            let wrongName = TrustPins.none.pinning("captions.example.net", to: [Self.root(TestCertificates.root, "Memora Test Root")])
            do {
                _ = try await Self.transport(wrongName, port: port, host: "captions.example.net")
                    .send(MemoraHTTP.HTTPRequest(method: "GET", url: URL(string: "https://captions.example.net:\(port)/v1/hello")!))
                Issue.record("a certificate for other names was accepted")
            } catch let error as MemoraHTTP.HTTPError {
                #expect(error.code == .untrustedCertificate, "\(error)")
            }
        }
    }

    @Test("a host that is not pinned goes through the fallback (URLSession, the system's trust: the test root is refused there too); plain http to a pinned host is refused")
    func unpinnedAndPlainHTTP() async throws {
        try await Self.withServer { port in
            do {
                _ = try await Self.transport(.cloud, port: port).send(MemoraHTTP.HTTPRequest(method: "GET", url: URL(string: "https://127.0.0.1:\(port)/v1/hello")!))
                Issue.record("the system trusted the test root")
            } catch let error as MemoraHTTP.HTTPError {
                #expect(error.code == .connectionFailed, "URLSession's failure, not the pinned transport's: \(error)")
            }
            do {
                _ = try await Self.transport(.cloud, port: port).send(MemoraHTTP.HTTPRequest(method: "GET", url: URL(string: "http://\(Self.gemini):\(port)/v1/hello")!))
                Issue.record("plain http to a pinned host was sent")
            } catch let error as MemoraHTTP.HTTPError {
                #expect(error.code == .untrustedCertificate && error.reason.contains("https only"), "\(error)")
            }
        }
    }

    @Test("a pins file gives its certificates with their fingerprints; a file without one, or with a broken one, is refused")
    func pinsFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data((TestCertificates.root + "\n" + TestCertificates.otherRoot + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/roots.pem"))
        let roots = try TrustPins.roots(inPEMFile: folder + "/roots.pem")
        #expect(roots.count == 2 && roots.allSatisfy { $0.sha256.count == 95 && $0.name.hasPrefix(folder + "/roots.pem#") })
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: folder + "/empty.pem"))
        #expect(throws: PinningError.self) { try TrustPins.roots(inPEMFile: folder + "/empty.pem") }
        try Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: folder + "/broken.pem"))
        #expect(throws: PinningError.self) { try TrustPins.roots(inPEMFile: folder + "/broken.pem") }
        // The shipped roots parse, and their fingerprints are the ones written beside them.
        for root in Set(CloudRoots.google + CloudRoots.openAI) {
            let der = try NIOSSLCertificate(bytes: Array(root.pem.utf8), format: .pem).toDERBytes()
            #expect(PinnedTransport.fingerprint(ofDER: der) == root.sha256, "\(root.name)")
        }
    }
}
