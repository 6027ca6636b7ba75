internal import MemoraSystem

/// A streaming `multipart/form-data` parser (RFC 7578, RFC 2046 section 5.1): chunks go in as they
/// arrive; each part's headers, its body in pieces and its end come out. Only the unread tail (less
/// than one delimiter) and one part's headers are held, so memory stays flat however large a part is.
/// The body is searched for the delimiter with `memchr` on its first byte, so a large file moves at
/// the speed of memory.
struct MultipartStream {
    /// What the parser found.
    enum Event {
        /// A part starts, with its headers (names in lower case).
        case part([(name: String, value: String)])
        /// Some of the current part's body.
        case body(UnsafeRawBufferPointer)
        /// The current part ended.
        case partEnd
    }

    /// Why a body is not valid multipart.
    enum Failure: Error, Equatable {
        /// No first boundary, a malformed delimiter line, or a header block too large or malformed.
        case malformed(String)
        /// The body ended before its closing delimiter.
        case truncated
    }

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    /// `CRLF--boundary`: every delimiter, the first one included (the stream is read as if preceded by CRLF).
    private let delimiter: [UInt8]
    private let maxHeaderBytes: Int
    private var state = State.preamble
    private var buffer: [UInt8] = [13, 10]
    private var start = 0

    /// A parser for parts separated by `boundary`; a part's header block may be at most `maxHeaderBytes`.
    init(boundary: String, maxHeaderBytes: Int = 16 * 1024) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Whether the closing delimiter was read.
    var isComplete: Bool { state == .epilogue }

    /// Reads `chunk`, reporting what it completes to `handle`.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        guard state != .epilogue else { return }  // the epilogue is ignored
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: chunk)
        while try step(handle) {}
    }

    /// Checks that the body ended where it should: after its closing delimiter.
    func finish() throws {
        guard state == .epilogue else { throw Failure.truncated }
    }

    /// One step of the state machine; false when it needs more bytes.
    private mutating func step(_ handle: (Event) throws -> Void) throws -> Bool {
        switch state {
        case .preamble:
            // The preamble (usually empty) runs to the first delimiter.
            guard let found = find(delimiter, from: start) else {
                // Keep only what could begin a delimiter.
                start = max(start, buffer.count - delimiter.count + 1)
                return false
            }
            start = found + delimiter.count
            state = .afterDelimiter
            return true
        case .afterDelimiter:
            // "--" closes the body; otherwise optional white space, then CRLF, then a part's headers.
            var index = start
            guard index + 2 <= buffer.count else { return false }
            if buffer[index] == 45 && buffer[index + 1] == 45 {
                state = .epilogue
                start = buffer.count
                return false
            }
            while index < buffer.count && (buffer[index] == 32 || buffer[index] == 9) { index += 1 }
            guard index + 2 <= buffer.count else {
                if index - start > 256 { throw Failure.malformed("a boundary line that does not end") }
                return false
            }
            guard buffer[index] == 13 && buffer[index + 1] == 10 else { throw Failure.malformed("a boundary followed by something other than a line end") }
            start = index + 2
            state = .headers
            return true
        case .headers:
            // Header lines up to an empty line (the block may be empty: the empty line comes at once).
            let block: Int
            if buffer.count - start >= 2 && buffer[start] == 13 && buffer[start + 1] == 10 {
                block = start
            } else if let end = find([13, 10, 13, 10], from: start) {
                block = end + 2
            } else {
                if buffer.count - start > maxHeaderBytes { throw Failure.malformed("a part's headers are larger than \(maxHeaderBytes) bytes") }
                return false
            }
            guard block - start <= maxHeaderBytes else { throw Failure.malformed("a part's headers are larger than \(maxHeaderBytes) bytes") }
            var headers: [(name: String, value: String)] = []
            for line in buffer[start..<block].split(separator: 10, omittingEmptySubsequences: true) {
                let text = line.last == 13 ? line.dropLast() : line[...]
                guard let colon = text.firstIndex(of: 58) else { throw Failure.malformed("a header line without a colon") }
                guard let name = String(validating: text[text.startIndex..<colon], as: UTF8.self),
                      let value = String(validating: text[(colon + 1)...], as: UTF8.self) else { throw Failure.malformed("a header that is not UTF-8") }
                headers.append((name.trimmingSpaces.lowercased(), value.trimmingSpaces))
            }
            start = block + 2
            state = .body
            try handle(.part(headers))
            return true
        case .body:
            if let found = find(delimiter, from: start) {
                try emit(start, found, handle)
                start = found + delimiter.count
                state = .afterDelimiter
                try handle(.partEnd)
                return true
            }
            // Everything but a tail that could begin a delimiter is body.
            let safe = max(start, buffer.count - delimiter.count + 1)
            try emit(start, safe, handle)
            start = safe
            return false
        case .epilogue:
            return false
        }
    }

    private func emit(_ from: Int, _ to: Int, _ handle: (Event) throws -> Void) throws {
        guard to > from else { return }
        try buffer.withUnsafeBytes { raw in try handle(.body(UnsafeRawBufferPointer(rebasing: raw[from..<to]))) }
    }

    /// The index of `pattern` in the buffer at or after `from`, or nil.
    private func find(_ pattern: [UInt8], from: Int) -> Int? {
        var index = from
        while let candidate = ByteSearch.firstIndex(of: pattern[0], in: buffer, from: index, to: buffer.count) {
            guard candidate + pattern.count <= buffer.count else { return nil }
            var matches = true
            for offset in 1..<pattern.count where buffer[candidate + offset] != pattern[offset] {
                matches = false
                break
            }
            if matches { return candidate }
            index = candidate + 1
        }
        return nil
    }
}

private extension String {
    /// Without spaces and tabs at either end.
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
