import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import MemoraCore
import MemoraHTTP
import TestSupport

/// MemoraCore's one error type: codes a program can match, messages that name the path once
/// and never dump a Foundation, GRDB or decoding error.
@Suite("MemoraError")
struct MemoraErrorTests {
    @Test("a file that is not a database: SQLite's own message and result code, the path once, not GRDB's description")
    func notADatabase() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/memora.sqlite"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try CaptionDatabase(path: path)
            Issue.record("a text file opened as the caption database")
        } catch {
            #expect(error.code == .openFailed && error.path == path && error.libraryCode == 26 && !error.isRetryable, "\(error)")
            #expect(error.message == "the caption database \(path) could not be opened: file is not a database")
        }
    }

    @Test("Foundation and decoding errors are told in words, never dumped; our own errors are their message")
    func cleanReasons() throws {
        var decoding: (any Error)?
        do { _ = try JSONDecoder().decode([String].self, from: Data("{".utf8)) } catch { decoding = error }
        let errors: [any Error] = [
            CocoaError(.fileNoSuchFile), URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "Could not connect to the server."]),
            NSError(domain: NSCocoaErrorDomain, code: 4, userInfo: [NSLocalizedDescriptionKey: "The file does not exist."]),
            try #require(decoding),
        ]
        for error in errors {
            let reason = MemoraError.reason(of: error)
            #expect(!reason.isEmpty && !reason.contains("Domain") && !reason.contains("Context(") && !reason.contains("dataCorrupted"),
                    "\(type(of: error)): \(reason)")
        }
        #expect(MemoraError.reason(of: MemoraError.notFound(path: "/a.jpg")) == "/a.jpg: no such file or folder")
    }

    @Test("codes a program can match: a blank edit, nothing to roll back, a photo MetadataKit cannot find")
    func codes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let editor = CaptionEditor(database: try CaptionDatabase(path: folder + "/memora.sqlite"))
        let photo = try makeCameraJPEG(in: folder)
        #expect { try editor.edit(path: photo, caption: "  ") } throws: {
            ($0 as? MemoraError)?.code == .emptyCaption && ($0 as? MemoraError)?.provider == nil
        }
        do {
            try editor.rollback(path: photo)
            Issue.record("a photo Memora never wrote to was rolled back")
        } catch {
            #expect(error.code == .nothingToRollBack && error.path == photo && error.message.components(separatedBy: photo).count == 2)
        }
        let missing = folder + "/missing.jpg"
        do {
            try editor.edit(path: missing, caption: "A cat on a wall.")
            Issue.record("a missing photo was edited")
        } catch {
            #expect(error.code == .notFound && error.path == missing && !error.isRetryable, "\(error)")
            #expect(error.message.components(separatedBy: missing).count == 2, "the path once: \(error)")
        }
        #expect(MemoraError.Code(rawValue: "rate-limited") == .rateLimited && MemoraError.Code.locked.description == "locked")
    }

    @Test("a transport failure keeps MemoraHTTP's code: cancelled is not a retryable connection failure, a too-large answer is malformed, a timeout says its seconds")
    func transportFailures() {
        let endpoint = "http://127.0.0.1:11434/api/chat"
        let cancelled = MemoraError.http(HTTPError(.cancelled, endpoint: endpoint, reason: "the request was cancelled"), timeout: nil)
        #expect(cancelled.code == .cancelled && !cancelled.isRetryable && cancelled.endpoint == endpoint)
        let large = MemoraError.http(HTTPError(.responseTooLarge, endpoint: endpoint, reason: "the answer is larger than 64 bytes"), timeout: nil)
        #expect(large.code == .malformedResponse && !large.isRetryable && large.message.contains("larger than 64 bytes"))
        let slow = MemoraError.http(HTTPError(.timedOut, endpoint: endpoint, reason: "no answer", isRetryable: true), timeout: .milliseconds(2500))
        #expect(slow.code == .timedOut && slow.isRetryable && slow.message == "\(endpoint) did not answer within 2.5 s")
        let refused = MemoraError.http(HTTPError(.connectionFailed, endpoint: endpoint, reason: "Connection refused", isRetryable: true), timeout: nil)
        #expect(refused.code == .connectionFailed && refused.isRetryable && refused.message.contains("Connection refused"))
    }
}
