import ArgumentParser
import MemoraSystem

/// Checks on text arguments that the argument parser cannot make. `memora` decodes `argv`
/// losslessly (`ProcessEnvironment.arguments`): a byte that is not part of valid UTF-8 is kept as
/// an escaped byte, so a path in another encoding still names its file. Text that is written into
/// photos (a caption typed in Latin-1) must be UTF-8, or it would be written damaged.
enum ArgumentText {
    /// Throws when `value` (given as `option`) was not valid UTF-8 on the command line.
    static func requireUTF8(_ value: String?, option: String) throws {
        guard let value, value.unicodeScalars.contains(where: { SystemPath.escapedByte($0) != nil }) else { return }
        throw ValidationError("\(option) is not valid UTF-8 text (was it typed in another encoding, such as Latin-1?); "
            + "nothing was written. Convert it, for example with `iconv -f latin1 -t utf-8`.")
    }
}
