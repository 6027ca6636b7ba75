import ArgumentParser

/// "Did you mean" for a mistyped subcommand: `memora captoin` says `did you mean 'caption'?`
/// (and lists the commands) instead of only "unexpected argument".
enum CommandSuggestion {
    /// The message for `arguments` when one of them, where a subcommand is expected, names none;
    /// nil when the arguments name commands (or options, which the parser checks itself).
    static func forMistyped(_ arguments: [String], in root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root.configuration.commandName ?? "memora"]
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            // A command with a default subcommand takes its arguments (`memora index PHOTOS`).
            guard !subcommands.isEmpty, command.configuration.defaultSubcommand == nil, !argument.hasPrefix("-"), argument != "help" else {
                return nil
            }
            let names = subcommands.map { $0.configuration.commandName ?? $0._commandName }
            if let index = names.firstIndex(of: argument) {
                command = subcommands[index]
                path.append(argument)
                continue
            }
            let nearest = names.map { ($0, distance(argument, $0)) }.min { $0.1 < $1.1 }
            var message = "\(path.joined(separator: " ")): '\(argument)' is not a command."
            if let nearest, nearest.1 <= max(2, argument.count / 3) { message += " Did you mean '\(nearest.0)'?" }
            return message + " The commands: " + names.joined(separator: ", ") + " (see `\(path.joined(separator: " ")) --help`)."
        }
        return nil
    }

    /// The Levenshtein distance between two words.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
