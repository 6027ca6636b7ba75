package import Foundation
package import MemoraHub
package import MemoraHTTP
internal import MemoraServer
internal import MemoraSync
internal import MemoraSystem
internal import Testing

/// A transport that checks every answer against Docs/openapi.json (the hub's routes are documented there too).
package struct CheckedTransport: HTTPTransport {
    package let inner = URLSessionTransport(timeout: .seconds(30))

    /// A transport that checks every answer.
    package init() {}

    package func send(_ request: HTTPRequest, progress: HTTPProgress?) async throws(HTTPError) -> HTTPResponse {
        let response = try await inner.send(request, progress: progress)
        for problem in OpenAPIDocument.shared.problems(method: request.method, path: request.url.path, status: response.status, body: response.body) {
            Issue.record("Docs/openapi.json: \(problem)")
        }
        return response
    }
}

extension TestServer {
    /// A pairing code for this hub, as `memora-server pair` makes it.
    package func pairingCode(lifetimeSeconds: Int64 = 600) async throws -> PairingCode {
        try await ServerData.open(folder, database: database).pairingCode(host: "127.0.0.1", port: port, lifetimeSeconds: lifetimeSeconds)
    }

    /// A paired hub client, its credentials in `folder`.
    package func pairedClient(_ folder: String) async throws -> HubClient {
        try await HubClient.pair(try await pairingCode(), credentials: SyncCredentialFile(path: folder + "/hub.json"), transport: CheckedTransport())
    }
}

/// A video or sound file made by Debian's `ffmpeg` from its test sources (scripts/install-deps.sh installs it).
/// FFmpeg is waited for on a thread of its own (`BlockingWork`): the servers under test run in this
/// process, and a thread of Swift's cooperative pool (two on a 2-core machine) blocked for the seconds
/// an encode takes stalls every one of them.
package func mediaFixture(_ path: String, _ arguments: String...) async throws {
    let outcome = try await BlockingWork.waiting.run { () throws -> ChildProcess.Outcome in
        try ChildProcess.run("/usr/bin/ffmpeg", ["-y", "-v", "error"] + arguments + [path])
    }
    guard outcome.status == 0, FileManager.default.fileExists(atPath: path) else {
        throw APIError(code: "fixture", message: "ffmpeg could not make \(path) (is Debian's ffmpeg installed? scripts/install-deps.sh)")
    }
}

/// The error `body` throws, nil when it succeeds.
package func hubFailure(_ body: () async throws(HubError) -> Void) async -> HubError? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// A raw multipart body with `parts` (name, content type, bytes).
package func multipart(_ parts: [(name: String, type: String, bytes: [UInt8])], boundary: String = "test-boundary-42", close: Bool = true) -> Data {
    var body = Data()
    for part in parts {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\"; filename=\"f\"\r\nContent-Type: \(part.type)\r\n\r\n".utf8))
        body.append(Data(part.bytes))
        body.append(Data("\r\n".utf8))
    }
    if close { body.append(Data("--\(boundary)--\r\n".utf8)) }
    return body
}
