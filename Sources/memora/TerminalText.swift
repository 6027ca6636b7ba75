import MemoraSystem

/// Text from files and photos made safe to print: a file name, caption or bundle field can
/// hold a newline, a carriage return, an escape sequence or a bidirectional override, which
/// printed raw would fake output lines or drive the terminal. Those characters are shown
/// escaped instead (`\n`, `\r`, `\t`, `\u{1B}`…); a byte of a file name that is not UTF-8 (kept
/// by `SystemPath` as a private-use scalar) is shown as `\xE9`; everything else is printed as it is.
/// JSON output needs none of this: the encoder escapes control characters itself.
enum TerminalText {
    /// `text` with every control character (C0, DEL, C1), line or paragraph separator and
    /// bidirectional control escaped.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else { result.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where SystemPath.escapedByte(scalar) != nil: result += "\\x" + String(SystemPath.escapedByte(scalar)!, radix: 16, uppercase: true)
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// Whether `scalar` must not reach a terminal as it is.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true          // C0, DEL, C1 (ESC, CSI, …)
        case 0x2028, 0x2029: true                      // line and paragraph separators
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true  // bidirectional controls
        default: SystemPath.escapedByte(scalar) != nil  // a file name's byte that is not UTF-8
        }
    }
}

/// `print` for the command line: each item is shown with ``TerminalText/escaped(_:)``, so
/// nothing read from a file or a photo can add lines to the output or drive the terminal.
/// It shadows the standard library's `print` everywhere in this target.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(items.map { TerminalText.escaped(String(describing: $0)) }.joined(separator: separator), terminator: terminator)
}
