import ArgumentParser
import Foundation
import MemoraSystem

/// A yes-or-no question before a destructive action: asked on standard error and answered on
/// standard input when that is a terminal; `--yes` answers it in scripts. Anything but "y" or
/// "yes" (or the end of input) is no, and the command then does nothing (exit status 2).
enum Confirmation {
    /// In `validate()`: without `--yes`, a terminal to ask on is needed (a usage error otherwise).
    static func requireTerminal(unless yes: Bool, _ action: String) throws {
        if !yes, !ProcessEnvironment.standardInputIsTerminal {
            throw ValidationError("\(action) asks first; pass --yes to confirm when there is no terminal")
        }
    }

    /// Asks `question` unless `yes`; a no ends the command with "nothing done".
    static func confirm(_ question: String, unless yes: Bool, command: String) throws {
        guard !yes else { return }
        guard ask(question) else {
            StandardError.write("\(command): nothing done (not confirmed)\n")
            throw ExitStatus.nothingDone
        }
    }

    static func ask(_ question: String) -> Bool {
        StandardError.write(question + " [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
