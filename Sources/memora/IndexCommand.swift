import ArgumentParser
import Foundation
import PhotoIndex

/// `memora index DIR` and `memora index stats`.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "Index a photo library (incremental), or show what the index holds.",
        subcommands: [Build.self, Stats.self], defaultSubcommand: Build.self)

    /// The index database option.
    struct IndexDatabaseOptions: ParsableArguments {
        @Option(help: "The photo index (default: $XDG_DATA_HOME/memora/index.sqlite).")
        var db: String?

        func open() throws -> PhotoIndexDatabase {
            try PhotoIndexDatabase(path: db ?? PhotoIndexDatabase.defaultPath)
        }

        /// The index, which must exist already (`run memora index PHOTOS first` otherwise).
        func openExisting() throws -> PhotoIndexDatabase {
            try PhotoIndexDatabase(path: db ?? PhotoIndexDatabase.defaultPath, creatingIfMissing: false)
        }
    }

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build", abstract: "Index the photos under a folder; only new and changed files are read again.")
        @OptionGroup var database: IndexDatabaseOptions
        @Argument(help: "The library's folder.") var folder: String
        @Flag(help: "Print the summary as JSON.") var json = false
        @Flag(help: "Do not look for faces and scenes in the pixels (faces then come from the photos' metadata only).") var noVision = false
        @Flag(help: "Also read the text in the photos (PP-OCRv6, about 0.4 s a photo) and keep it in the index with its boxes.") var readText = false
        @OptionGroup var output: WriteOutputOptions

        /// The vision models when installed; without them a note says what is lost and how to get them.
        func vision() -> IndexVision? {
            guard !noVision else { return nil }
            do { return try IndexVision.installed(readsText: readText) } catch {
                if !output.quiet {
                    StandardError.write("note: faces come from the photos' metadata only and there are no themes: \(error.message)\n")
                }
                return nil
            }
        }

        func run() async throws {
            let library = DirectoryPhotoLibrary(root: folder)
            if output.dryRun {
                // A dry run creates no index: without one, every photo would be indexed.
                let summary = try PhotoIndexer.check(library, indexAt: database.db ?? PhotoIndexDatabase.defaultPath)
                if json { try printJSON(summary); return }
                for item in summary.unreadable { StandardError.write("\(item.path): \(item.reason)\n") }
                output.say("\(summary.total) photos: \(summary.indexed) would be indexed, \(summary.unchanged) unchanged, \(summary.renamed) moved, "
                           + "\(summary.removed) removed from the index, \(summary.unreadable.count) unreadable; nothing written")
                return
            }
            let db = try database.open()
            let vision = vision()
            let summary = try await PhotoIndexer(database: db, vision: vision).index(library) { done, total, path in
                ProgressReporter(title: "index", total: total, silent: json || output.quiet).update(completed: done, item: (path as NSString).lastPathComponent)
            }
            // The faces found join their people (or make new ones).
            let people = vision == nil ? nil : try PeopleClustering(database: db).update()
            let themes = vision == nil ? nil : try ThemeClustering(database: db).run()
            if json { try printJSON(summary); return }
            for item in summary.unreadable { StandardError.write("\(item.path): \(item.reason)\n") }
            if let people {
                output.say(PeopleCommand.describe(people))
                let suggestions = (try? PeopleClustering(database: db).suggestions().count) ?? 0
                if suggestions > 0 { output.say("\(suggestions) group(s) of faces look like one person but are not one yet: memora people suggestions") }
            }
            if let themes {
                output.say("themes (\(themes.clusters) scene clusters, \(themes.namedClusters) named): "
                           + (themes.themes.isEmpty ? "none found" : themes.themes.map { "\($0.value) (\($0.count))" }.joined(separator: ", ")))
            }
            output.say("\(summary.total) photos: \(summary.indexed) indexed, \(summary.unchanged) unchanged, \(summary.renamed) moved, "
                       + "\(summary.removed) removed, \(summary.failed) unreadable (recorded with their error). Index: \(db.path)")
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Years, places and people with their photo counts.")
        @OptionGroup var database: IndexDatabaseOptions
        @Option(help: "The fewest photos a person needs to be listed.") var minimumPhotos = PersonCache.defaultMinimumPhotos
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let cache = try PersonCache(database: database.open(), minimumPhotosPerPerson: minimumPhotos)
            if json { try printJSON(cache); return }
            print("\(cache.photos) photos (\(cache.unreadable) unreadable, \(cache.untrustedDates) dated by their file only)")
            print("Years: " + cache.years.map { "\($0.value) (\($0.count))" }.joined(separator: ", "))
            print("Places: " + (cache.places.isEmpty ? "none named" : cache.places.map { "\($0.value) (\($0.count))" }.joined(separator: ", ")))
            print("Themes: " + (cache.themes.isEmpty ? "none yet (memora index finds them with the models of scripts/install-models.sh)"
                                : cache.themes.map { "\($0.value) (\($0.count))" }.joined(separator: ", ")))
            print("People with \(cache.minimumPhotosPerPerson)+ photos: "
                  + (cache.people.isEmpty ? "none" : cache.people.map { "\($0.value) (\($0.count))" }.joined(separator: ", ")))
        }
    }
}
