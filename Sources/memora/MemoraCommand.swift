import ArgumentParser
import MemoraSystem
import ImageKit
import MemoraCore
import MemoraHub
import MemoraSync
import MetadataKit
import PhotoIndex
import VaultCrypto

/// `memora`: the command-line front end over Memora's libraries.
@main
struct MemoraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memora",
        abstract: "Photo privacy and accessibility tools: captions, encryption, memories.",
        discussion: """
            Results go to standard output (use --json where offered); progress and \
            diagnostics go to standard error.
            """,
        version: MemoraVersion.string,
        subcommands: [
            CaptionCommand.self, QueueCommand.self, IndexCommand.self, PeopleCommand.self, CollageCommand.self, HistoryCommand.self, EditCommand.self, RollbackCommand.self, PrefsCommand.self,
            ImageCommand.self, MetadataCommand.self, VaultCommand.self, SyncCommand.self, PlacesCommand.self, HubCommand.self, DemoCommand.self,
        ])

    /// Runs the command. An error from our libraries is printed as one line, `Error: ` and its
    /// message with control characters escaped (a file name cannot fake output lines or drive the
    /// terminal); the argument parser's own errors, help and version are printed as it prints them.
    static func main() async {
        if let suggestion = CommandSuggestion.forMistyped(ProcessEnvironment.arguments, in: Self.self) {
            StandardError.write(suggestion + "\n")
            exit(withError: ExitCode.validationFailure)
        }
        do {
            // The arguments as bytes: a file name that is not UTF-8 still names its file.
            var command = try parseAsRoot(ProcessEnvironment.arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error where isLibraryError(error) {
            StandardError.write("Error: \(error)\n")
            exit(withError: ExitStatus.nothingDone)
        } catch {
            exit(withError: error)
        }
    }

    /// Whether `error` is one of our libraries' (its message may quote a file name or a field read from a file).
    static func isLibraryError(_ error: any Error) -> Bool {
        error is MetadataError || error is ImageError || error is VaultCryptoError || error is PhotoIndexError || error is MemoraError || error is SyncError || error is HubError
    }
}
