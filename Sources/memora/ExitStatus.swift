import ArgumentParser

/// The exit statuses of every `memora` command (README, "Exit status"):
/// - 0: everything asked for was done;
/// - 1: some items failed (the others were done);
/// - 2: nothing was done (every item failed, the command stopped with an error, or a question was answered no);
/// - 64: a usage error (the argument parser's).
enum ExitStatus {
    /// Some items failed, the others were done.
    static let someFailed = ExitCode(1)
    /// Nothing was done.
    static let nothingDone = ExitCode(2)

    /// Throws the status for a list of items of which `failed` failed and `done` were done (nothing when none failed).
    static func check(failed: Int, done: Int) throws {
        guard failed > 0 else { return }
        throw done > 0 ? someFailed : nothingDone
    }
}
