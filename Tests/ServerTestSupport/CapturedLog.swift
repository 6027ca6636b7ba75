package import Logging
internal import MemoraSystem

/// Every line a server logs, kept in memory for a test to read: the message and its metadata as `key=value`.
package final class CapturedLog: Sendable {
    private let lines = Locked<[String]>([])

    /// An empty log.
    package init() {}

    /// The lines so far.
    package var text: [String] { lines.withLock { $0 } }

    /// A logger at `level` that writes here.
    package func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "memora-server") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append("\(event.level) \(event.message) " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
    }
}
