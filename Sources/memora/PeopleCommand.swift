import ArgumentParser
import Foundation
import PhotoIndex

/// `memora people`: the people the index found by grouping faces (PeopleClustering).
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "The people found in the photos' faces (`memora index` groups them): list them and their photos, name, merge, split and hide them.",
        discussion: "Faces are found in the pixels by `memora index` (with the models of scripts/install-models.sh) and grouped into people: two faces of one photo are never one person, and a name from a photo's metadata names the person its face is in. A name you give stays, and so do the faces you split off.",
        subcommands: [List.self, Photos.self, Name.self, Merge.self, Split.self, Hide.self, Show.self, Cluster.self, Suggestions.self, Accept.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The people, most photos first, with their numbers.")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Flag(help: "Include hidden people.") var all = false
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let people = try database.openExisting().people(includingHidden: all)
            if json { try printJSON(people); return }
            guard !people.isEmpty else {
                print("No people yet: `memora index PHOTOS` finds faces with the models of scripts/install-models.sh and groups them.")
                return
            }
            for person in people {
                let name = person.name.map { "\($0)\(person.isNamedByUser ? "" : " (from the photos' metadata)")" } ?? "(no name: memora people name \(person.id) NAME)"
                print("\(person.id)  \(name)  \(person.photoCount) photos, \(person.faceCount) faces\(person.isHidden ? "  hidden" : "")")
            }
        }
    }

    struct Photos: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The photos a person is in, newest first.")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The person's number (see `memora people`).") var id: Int64
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let photos = try database.openExisting().photos(ofPerson: id)
            if json { try printJSON(photos); return }
            for path in photos { print(TerminalText.escaped(path)) }
        }
    }

    struct Name: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Name a person (their faces and photos take the name; it stays).")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The person's number (see `memora people`).") var id: Int64
        @Argument(help: "The name.") var name: String
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let index = try database.openExisting()
            if output.dryRun {
                output.say("would name person \(id) (\(try index.person(id).photoCount) photos) \"\(name)\"; nothing written")
                return
            }
            try index.name(person: id, name)
            output.say("person \(id) is \"\(name.trimmingCharacters(in: .whitespacesAndNewlines))\"")
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Merge one person into another (two groups that are the same person).")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The person to merge (it goes).") var id: Int64
        @Argument(help: "The person to merge into (it stays).") var into: Int64
        @OptionGroup var output: WriteOutputOptions

        func run() throws {
            let index = try database.openExisting()
            if output.dryRun {
                let from = try index.checkMerge(person: id, into: into)
                output.say("would move the \(from.faceCount) faces of person \(id) to person \(into); nothing written")
                return
            }
            try index.merge(person: id, into: into)
            output.say("person \(id) merged into person \(into)")
        }
    }

    struct Split: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a person's faces in some photos to another person (a group that holds two people).",
            discussion: "The faces go to a new person, or with --name to the person already called NAME (else a new person called NAME). They stay there when the photos are indexed again and when the people are grouped again (`memora people cluster`, with --rebuild too).")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The person to split (see `memora people`).") var id: Int64
        @Argument(help: ArgumentHelp("The photos whose face of that person is someone else (paths as indexed, or from here).", valueName: "photo"))
        var photos: [String] = []
        @Option(help: "The name of the person the faces go to (the person already called so, else a new one).") var name: String?
        @Flag(help: "Print as JSON.") var json = false
        @OptionGroup var output: WriteOutputOptions

        func validate() throws {
            guard !photos.isEmpty else { throw ValidationError("give the photos whose face of person \(id) is someone else") }
        }

        func run() throws {
            let index = try database.openExisting()
            let split = output.dryRun ? try index.checkSplit(person: id, photos: photos, name: name) : try index.split(person: id, photos: photos, name: name)
            if json { try printJSON(split); return }
            let target = split.target.map { "person \($0)\(split.name.map { " (\($0))" } ?? "")" } ?? "a new person\(split.name.map { " called \($0)" } ?? "")"
            let faces = "\(split.faceCount) face\(split.faceCount == 1 ? "" : "s") of person \(id) in \(split.photos.count) photo\(split.photos.count == 1 ? "" : "s")"
            if output.dryRun {
                output.say("would move the \(faces) to \(target); nothing written")
                return
            }
            output.say("moved the \(faces) to \(target)" + (split.joinsExistingPerson || split.name != nil ? "" : " (memora people name \(split.target ?? 0) NAME names them)"))
        }
    }

    struct Hide: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hide a person from the list and the picker.")
        @OptionGroup var visibility: Visibility

        func run() throws {
            try visibility.set(hidden: true, done: "hidden (memora people show \(visibility.id) shows them again)")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a hidden person again.")
        @OptionGroup var visibility: Visibility

        func run() throws {
            try visibility.set(hidden: false, done: "shown")
        }
    }

    /// What `hide` and `show` take, and what they do.
    struct Visibility: ParsableArguments {
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The person's number.") var id: Int64
        @OptionGroup var output: WriteOutputOptions

        func set(hidden: Bool, done: String) throws {
            let index = try database.openExisting()
            if output.dryRun {
                _ = try index.person(id)
                output.say("would \(hidden ? "hide" : "show") person \(id); nothing written")
                return
            }
            try index.setHidden(person: id, hidden)
            output.say("person \(id) \(done)")
        }
    }

    struct Cluster: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Group the faces not in a person yet (`memora index` does it after indexing), or, with --rebuild, every face again.")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Flag(help: "Group every face again (people keep their numbers and names where most of their faces stay together).") var rebuild = false
        @Option(help: "The largest distance between two neighbouring faces of one person (dlib embeddings; Docs/PhotoIndex.md says how the default was measured).")
        var distance = PeopleClustering.defaultDistance
        @Option(help: "The fewest faces that make a person.") var minimumFaces = 3
        @Flag(help: "Print as JSON.") var json = false

        func validate() throws {
            guard distance > 0 && distance < 2 else { throw ValidationError("--distance is between 0 and 2 (\(PeopleClustering.defaultDistance) by default)") }
            guard minimumFaces >= 1 else { throw ValidationError("--minimum-faces is at least 1") }
        }

        func run() throws {
            let clustering = PeopleClustering(database: try database.openExisting(), distance: distance, minimumFaces: minimumFaces)
            let summary = rebuild ? try clustering.rebuild() : try clustering.update()
            if json { try printJSON(summary); return }
            print(PeopleCommand.describe(summary))
        }
    }

    struct Suggestions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Faces in two photos (fewer than make a person) that look like one person: accept one with `memora people accept N`.")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let suggestions = try PeopleClustering(database: try database.openExisting()).suggestions()
            if json { try printJSON(suggestions); return }
            guard !suggestions.isEmpty else { print("No suggestions: every face that looks like another is in a person already."); return }
            for suggestion in suggestions {
                print("\(suggestion.number)  one person in \(suggestion.photos.count) photos (distance \(String(format: "%.2f", suggestion.distance))): "
                      + suggestion.photos.map(TerminalText.escaped).joined(separator: ", "))
            }
            print("`memora people accept N [--name NAME]` makes suggestion N a person.")
        }
    }

    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a suggestion (`memora people suggestions`) a person; their faces stay together.")
        @OptionGroup var database: IndexCommand.IndexDatabaseOptions
        @Argument(help: "The suggestion's number.") var number: Int
        @Option(help: "The person's name.") var name: String?
        @OptionGroup var output: WriteOutputOptions

        func validate() throws {
            try ArgumentText.requireUTF8(name, option: "--name")
        }

        func run() throws {
            let clustering = PeopleClustering(database: try database.openExisting())
            if output.dryRun {
                let suggestions = try clustering.suggestions()
                guard let suggestion = suggestions.first(where: { $0.number == number }) else {
                    throw ValidationError("there is no suggestion \(number): `memora people suggestions` lists \(suggestions.count)")
                }
                output.say("would make a person of the faces in \(suggestion.photos.count) photos; nothing written")
                return
            }
            let person = try clustering.accept(suggestion: number, name: name)
            output.say("person \(person.id)\(person.name.map { " (\($0))" } ?? ""): \(person.photoCount) photos" + (person.name == nil ? "; memora people name \(person.id) NAME names them" : ""))
        }
    }

    /// One line for a clustering's summary.
    static func describe(_ summary: PeopleClustering.Summary) -> String {
        "\(summary.people) people (\(summary.newPeople) new); \(summary.joined) faces joined a known person, \(summary.unassigned) belong to nobody yet"
    }
}
