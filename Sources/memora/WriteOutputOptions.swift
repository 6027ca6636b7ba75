import ArgumentParser

/// `--dry-run` and `--quiet`, for every command that writes.
struct WriteOutputOptions: ParsableArguments {
    @Flag(help: "Make every check the command would make (photos are read, edited and verified in memory) and say what it would do; write nothing.")
    var dryRun = false

    @Flag(name: [.customShort("q"), .long], help: "Print nothing but errors (the exit status says how it went).")
    var quiet = false

    /// Prints `line` unless `--quiet`.
    func say(_ line: String) {
        if !quiet { print(line) }
    }
}
