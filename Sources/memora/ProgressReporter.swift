import Foundation
import MemoraSystem

/// Reports progress on standard error: a redrawn bar when stderr is a terminal,
/// one plain line per step otherwise (for logs and CI); nothing with `--quiet`. Never writes to stdout.
struct ProgressReporter {
    let title: String
    let total: Int
    /// Report nothing (`--quiet`, `--json`).
    let isSilent: Bool
    private let isTerminal = ProcessEnvironment.standardErrorIsTerminal

    init(title: String, total: Int, silent: Bool = false) {
        self.title = title
        self.total = total
        self.isSilent = silent
    }

    /// Reports that `completed` of `total` steps are done; `item` names the current one.
    func update(completed: Int, item: String) {
        if isSilent { return }
        if isTerminal {
            let width = 30
            let filled = total > 0 ? width * completed / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            StandardError.raw("\r\u{1B}[K\(title) [\(bar)] \(completed)/\(total) \(TerminalText.escaped(String(item.suffix(40))))")
            if completed == total { StandardError.raw("\n") }
        } else {
            StandardError.write("\(title): \(completed)/\(total) \(item)\n")
        }
    }
}

/// Unbuffered writes to standard error.
enum StandardError {
    /// Writes `text`, one line (its final `\n` kept): every other control character, a newline
    /// inside a file name included, is shown escaped (``TerminalText``), so nothing read from a
    /// file can add lines or drive the terminal. Write several lines with several calls.
    static func write(_ text: String) {
        guard text.hasSuffix("\n") else { return raw(TerminalText.escaped(text)) }
        raw(TerminalText.escaped(String(text.dropLast())) + "\n")
    }

    /// Writes `text` as it is (the progress bar's own control sequences).
    static func raw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
