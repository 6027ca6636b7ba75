import MemoraSystem
import Testing

/// Two modules' codes, as ImageKit and MetadataKit declare theirs.
private struct ReadCode: ErrorCode {
    var rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
    static let damaged = ReadCode(rawValue: "damaged")
}

private struct WriteCode: ErrorCode {
    var rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
    static let damaged = WriteCode(rawValue: "damaged")
}

private typealias ReadError = FileError<ReadCode>
private typealias WriteError = FileError<WriteCode>

@Suite("FileError, the one shape of the errors about files")
struct FileErrorTests {
    @Test("without a message, the path once, then the reason; without a path, the reason alone")
    func message() {
        let named = ReadError(.damaged, path: "/photos/a.jpg", reason: "the image is damaged")
        #expect(named.message == "/photos/a.jpg: the image is damaged" && named.description == named.message)
        #expect(ReadError(.damaged, path: nil, reason: "an empty crop").message == "an empty crop")
        let given = ReadError(.damaged, path: "/photos/a.jpg", reason: "r", message: "the photo index /photos/a.jpg failed: r", libraryCode: 11)
        #expect(given.message == "the photo index /photos/a.jpg failed: r" && given.libraryCode == 11 && !given.isRetryable)
        #expect(given.retryAfter == nil && given.code.description == "damaged")
    }

    @Test("each module's instance is a type of its own: a catch of one does not take the other")
    func distinctTypes() {
        func read() throws(ReadError) { throw ReadError(.damaged, path: "a", reason: "r", isRetryable: true) }
        do {
            try read()
            Issue.record("read() did not throw")
        } catch {
            #expect(error.isRetryable && error.code == .damaged)
            let thrown: any Error = error
            #expect(thrown is ReadError)
            #expect(!(thrown is WriteError), "a reading error must not be caught as a writing one")
        }
    }
}
