import ArgumentParser

/// Checks on text arguments that the argument parser cannot make: it receives `argv` already
/// decoded, with every byte that is not UTF-8 replaced by U+FFFD, so a caption typed in another
/// encoding (Latin-1) would be written into photos damaged. The raw bytes are still in `argv`.
enum ArgumentText {
    /// Throws when the argument that decoded to `value` (given as `option`) was not valid UTF-8.
    static func requireUTF8(_ value: String?, option: String) throws {
        guard let value, value.unicodeScalars.contains("\u{FFFD}") else { return }
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let decoded = String(cString: pointer)
            guard decoded == value || decoded == option + "=" + value else { continue }
            if String(validatingCString: pointer) == nil {
                throw ValidationError("\(option) is not valid UTF-8 text (was it typed in another encoding, such as Latin-1?); "
                    + "nothing was written. Convert it, for example with `iconv -f latin1 -t utf-8`.")
            }
        }
    }
}
