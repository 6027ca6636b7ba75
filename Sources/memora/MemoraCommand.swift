import ArgumentParser
import MemoraCore

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
            CaptionCommand.self, QueueCommand.self, IndexCommand.self, CollageCommand.self, HistoryCommand.self, EditCommand.self, RollbackCommand.self, PrefsCommand.self,
            ImageCommand.self, MetadataCommand.self, VaultCommand.self, DemoCommand.self,
        ])
}
