import Foundation
@testable import MemoraServer
import Testing

/// The hub's streaming multipart parser, fed in every chunk size.
@Suite("Multipart stream")
struct MultipartStreamTests {
    /// The parts read from `body` fed `size` bytes at a time: (headers, body) each.
    static func parse(_ body: [UInt8], boundary: String, size: Int) throws -> (parts: [([String: String], [UInt8])], complete: Bool) {
        var stream = MultipartStream(boundary: boundary)
        var parts: [([String: String], [UInt8])] = []
        var open = false
        for offset in stride(from: 0, to: body.count, by: size) {
            try body[offset..<min(offset + size, body.count)].withUnsafeBytes { chunk in
                try stream.feed(chunk) { event in
                    switch event {
                    case .part(let headers):
                        parts.append((Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), []))
                        open = true
                    case .body(let bytes):
                        #expect(open)
                        parts[parts.count - 1].1.append(contentsOf: bytes)
                    case .partEnd:
                        open = false
                    }
                }
            }
        }
        return (parts, stream.isComplete)
    }

    @Test("parts come out whole whatever the chunk size, with bodies that hold pieces of the delimiter")
    func everyChunkSize() throws {
        let boundary = "xYz-42"
        let tricky: [UInt8] = Array("line\r\n--xYz-4 almost\r\n--xY\r\n-\r\n".utf8) + [0, 13, 10, 45, 45, 120, 89, 122, 45, 52] + Array("end".utf8)
        let body = Array("preamble to ignore\r\n--xYz-42\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n--xYz-42  \r\nContent-Disposition: form-data; name=\"media\"; filename=\"f.bin\"\r\n\r\n".utf8)
            + tricky + Array("\r\n--xYz-42\r\n\r\n\r\n--xYz-42--\r\nepilogue".utf8)
        for size in 1...body.count {
            let (parts, complete) = try Self.parse(body, boundary: boundary, size: size)
            #expect(complete, "size \(size)")
            #expect(parts.count == 3, "size \(size)")
            guard parts.count == 3 else { continue }
            #expect(parts[0].0["content-disposition"] == "form-data; name=\"metadata\"" && parts[0].0["content-type"] == "application/json")
            #expect(parts[0].1 == Array("{\"a\":1}".utf8), "size \(size)")
            #expect(parts[1].1 == tricky, "size \(size)")
            #expect(parts[2].0.isEmpty && parts[2].1.isEmpty, "size \(size)")
        }
        // A body that starts with the delimiter itself (no preamble) parses too.
        let plain = Array("--b\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\nx\r\n--b--".utf8)
        let (parts, complete) = try Self.parse(plain, boundary: "b", size: 3)
        #expect(complete && parts.count == 1 && parts[0].1 == [120])
    }

    @Test("a cut-short body, a malformed delimiter line or header and oversized headers are refused")
    func refusals() throws {
        let body = Array("--b\r\nContent-Disposition: form-data; name=\"media\"\r\n\r\nsome bytes\r\n--b--\r\n".utf8)
        for cut in [5, 30, body.count - 8, body.count - 4] {
            var stream = MultipartStream(boundary: "b")
            try body.prefix(cut).withUnsafeBytes { try stream.feed($0) { _ in } }
            #expect(throws: MultipartStream.Failure.truncated) { try stream.finish() }
        }
        var garbage = MultipartStream(boundary: "b")
        #expect(throws: MultipartStream.Failure.self) { try Array("--bX\r\n".utf8).withUnsafeBytes { try garbage.feed($0) { _ in } } }
        var noColon = MultipartStream(boundary: "b")
        #expect(throws: MultipartStream.Failure.self) { try Array("--b\r\nno colon here\r\n\r\n".utf8).withUnsafeBytes { try noColon.feed($0) { _ in } } }
        var huge = MultipartStream(boundary: "b", maxHeaderBytes: 100)
        #expect(throws: MultipartStream.Failure.self) {
            try (Array("--b\r\nX-Long: ".utf8) + [UInt8](repeating: 97, count: 500)).withUnsafeBytes { try huge.feed($0) { _ in } }
        }
    }
}
