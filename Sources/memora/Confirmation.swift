import Foundation

/// A yes-or-no question asked on standard error and answered on standard input; anything but
/// "y" or "yes" (or the end of input) is no.
enum Confirmation {
    static func ask(_ question: String) -> Bool {
        StandardError.write(question + " [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
