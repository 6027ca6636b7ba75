import ArgumentParser
import Foundation
import MemoraCore
import MemoraHub
import MemoraSync
import MemoraSystem
import PhotoVision

/// `memora hub`: the Memory Palace collector: pair with a family hub, add memories, manage people.
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Collect memories for a Memory Palace hub (memora-server): pair, add photos, videos, voice notes and texts, tag people.",
        subcommands: [Pair.self, Status.self, Add.self, Flush.self, Memories.self, Remove.self, People.self, Tag.self])

    /// Where the hub's token is kept.
    struct Credentials: ParsableArguments {
        @Option(help: "Where this device's hub token is kept (0600).") var credentials: String = ApplicationFolders().configuration + "/hub-credentials.json"
        var file: SyncCredentialFile { SyncCredentialFile(path: credentials) }
        func client() throws -> HubClient { try HubClient(credentials: file) }
        /// The collector: faces found on this device (when the vision models are installed), the outbox,
        /// and `describer` for photos without a description.
        func collector(describer: OnDeviceMemoryDescriber? = nil) throws -> MemoryCollector {
            MemoryCollector(hub: try client(), folder: ApplicationFolders().data + "/hub-collector", faceAnalyzer: try? DlibFaceAnalyzer(),
                            describer: describer)
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pair with a hub from its QR code's text (the JSON, or its pairing address).")
        @OptionGroup var credentials: Credentials
        @Argument(help: "The QR code's text: {\"serverIP\":…,\"port\":…,\"authToken\":…} or http://HOST:PORT/pair?token=….") var code: String

        func run() async throws {
            let config = try PairingCode(qrText: code)
            let hub = try await HubClient.pair(config, credentials: credentials.file)
            let health = try await hub.testConnection()
            print("paired with \(config.serverName.map { TerminalText.escaped($0) + " at " } ?? "")\(hub.base.absoluteString) (memora-server \(health.version))")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check the connection to the paired hub.")
        @OptionGroup var credentials: Credentials

        func run() async throws {
            let hub = try credentials.client()
            let health = try await hub.testConnection()
            print("\(hub.base.absoluteString): \(health.status), memora-server \(health.version), \(health.storage)")
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Upload a memory: photo, video or voice with its file, or text.")
        @OptionGroup var credentials: Credentials
        @Argument(help: "photo, video, voice or text.") var kind: String
        @Argument(help: "The file (none for text: give --text).") var file: String?
        @Option(help: "The title (the file's name by default).") var title: String?
        @Option(help: "A description (a photo without one is described by its own alt text, else its caption, else on this device).") var description: String?
        @Option(help: "The text of a text memory.") var text: String?
        @Option(help: "When it happened: YYYY-MM-DD (a photo's own date by default).") var date: String?
        @Option(help: "A place name.") var place: String?
        @Option(parsing: .upToNextOption, help: "People in it, by name or id (memora hub people list).") var people: [String] = []
        @Option(name: .customLong("tag"), help: "A photo's face and who it is: FACE=PERSON (faces numbered from 1, most certain first).") var tags: [String] = []
        @Flag(help: "Do not tag faces with the people they are suggested as.") var noSuggestions = false
        @Flag(help: "Send the photo's GPS position too (it is removed by default).") var keepLocation = false
        @Flag(help: "Do not describe a photo that has no description on this device (the on-device models; nothing is sent anywhere but the hub).")
        var noDescribe = false
        @Flag(help: "Print the memory as JSON.") var json = false

        func run() async throws {
            guard let kind = MemoryKind(rawValue: kind) else { throw ValidationError("the kind is photo, video, voice or text") }
            if kind == .text {
                guard file == nil, let text, !text.isEmpty else { throw ValidationError("a text memory takes --text \"…\" and no file") }
            } else {
                guard let file else { throw ValidationError("a \(kind.rawValue) memory needs its file") }
                guard FileManager.default.isReadableFile(atPath: file) else { throw ValidationError("\(file): no such file, or it cannot be read") }
            }
            var takenAt: Int64?
            if let date {
                let parser = DateFormatter()
                parser.locale = Locale(identifier: "en_US_POSIX")
                parser.timeZone = TimeZone(identifier: "UTC")
                parser.dateFormat = "yyyy-MM-dd"
                guard let day = parser.date(from: date) else { throw ValidationError("--date is YYYY-MM-DD, for example 2019-07-14") }
                takenAt = Int64(day.timeIntervalSince1970 * 1000)
            }
            let describer = kind == .photo && !noDescribe ? OnDeviceMemoryDescriber() : nil
            let collector = try credentials.collector(describer: describer)
            let ids = try await People.ids(people, on: collector.hub)
            var faceTags: [Int: Int64] = [:]
            for tag in tags {
                let parts = tag.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let face = Int(parts[0]), face >= 1 else { throw ValidationError("--tag is FACE=PERSON, for example 1=Ana (faces are numbered from 1, most certain first)") }
                faceTags[face - 1] = try await People.ids([parts[1]], on: collector.hub)[0]
            }
            let name = title ?? file.map { SystemPath.fileName(of: $0) } ?? "Note"
            let upload = MemoryUpload(kind: kind, title: name, description: kind == .text ? text : description, takenAt: takenAt, place: place,
                                      people: ids.isEmpty ? nil : ids)
            let outcome: MemoryCollector.Outcome
            if kind == .photo, let file {
                if collector.faceAnalyzer == nil && !json { print("(no vision models: faces are not looked for; scripts/install-models.sh installs them)") }
                outcome = try await collector.addPhoto(file, metadata: upload, tags: faceTags, acceptSuggestions: !noSuggestions, keepLocation: keepLocation)
            } else {
                outcome = try await collector.add(upload, file: file)
            }
            if (describer?.described ?? 0) > 0 {
                StandardError.write("memora: the photo had no description; it was described on this device, labelled on the hub as written automatically\n")
            }
            switch outcome {
            case .uploaded(let memory, let created):
                if json { try printJSON(memory); return }
                print("\(created ? "added" : "already on the hub:") memory \(memory.id), \(memory.kind.rawValue) \"\(TerminalText.escaped(memory.title))\" (\(memory.size) bytes)")
                for (index, face) in memory.faces.enumerated() {
                    print("  face \(index + 1) (id \(face.id.map(String.init) ?? "?")): " + (face.personId.map { "person \($0)" } ?? "untagged (memora hub tag \(memory.id) \(face.id.map(String.init) ?? "FACE") NAME)"))
                }
            case .queued(let waiting):
                print("the hub cannot be reached: the memory waits on this device (\(waiting) waiting); `memora hub flush` sends them")
            }
        }
    }

    struct Flush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send the memories made and the faces tagged while the hub was away.")
        @OptionGroup var credentials: Credentials

        func run() async throws {
            let collector = try credentials.collector()
            let sent = try await collector.flush()
            let waiting = try collector.outbox.items().count, tags = try collector.outbox.tags().count
            print("sent \(sent.count) memor\(sent.count == 1 ? "y" : "ies")" + (waiting > 0 ? "; \(waiting) still wait (the hub cannot be reached)" : "")
                  + (tags > 0 ? "; \(tags) face tag\(tags == 1 ? "" : "s") still wait" : ""))
        }
    }

    struct Memories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List memories, newest first.")
        @OptionGroup var credentials: Credentials
        @Option(help: "Only those with this person (name or id).") var person: String?
        @Option(help: "Only photo, video, voice or text.") var kind: String?
        @Option(help: "How many (1-200).") var limit = 50
        @Flag(help: "Print as JSON.") var json = false

        func run() async throws {
            let hub = try credentials.client()
            let personID = try await People.id(person, on: hub)
            let kind = try self.kind.map { text in
                guard let kind = MemoryKind(rawValue: text) else { throw ValidationError("--kind is photo, video, voice or text") }
                return kind
            }
            let page = try await hub.memories(person: personID, kind: kind, limit: limit)
            if json { try printJSON(page); return }
            if page.memories.isEmpty { print("no memories yet (memora hub add photo FILE)") }
            for memory in page.memories {
                let faces = memory.faces.isEmpty ? "" : ", \(memory.faces.count) face(s)"
                print("\(memory.id)  \(memory.kind.rawValue)  \(TerminalText.escaped(memory.title))  people \(memory.people.map(String.init).joined(separator: ","))\(faces)")
            }
            if page.nextCursor != nil { print("(more: --limit \(min(200, limit * 2)))") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a memory from the hub.")
        @OptionGroup var credentials: Credentials
        @Argument(help: "The memory's id (memora hub memories).") var memory: Int64

        func run() async throws {
            try await credentials.client().removeMemory(id: memory)
            print("removed memory \(memory)")
        }
    }

    struct Tag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say who a face on a photo memory is (or --none).")
        @OptionGroup var credentials: Credentials
        @Argument(help: "The memory's id.") var memory: Int64
        @Argument(help: "The face's id (memora hub memories --json lists them).") var face: Int64
        @Argument(help: "The person, by name or id (an id works while the hub is away).") var person: String?
        @Flag(help: "Untag the face.") var none = false

        func run() async throws {
            guard (person == nil) == none else { throw ValidationError("give a person, or --none to untag the face") }
            let collector = try credentials.collector()
            // A name is looked up on the hub; an id is sent as it is (the hub checks it).
            let id: Int64?
            if let person, let number = Int64(person) { id = number } else { id = try await People.id(person, on: collector.hub) }
            switch try await collector.tag(memory: memory, face: face, person: id) {
            case .tagged:
                print(id.map { "face \(face) of memory \(memory) is person \($0)" } ?? "face \(face) of memory \(memory) is untagged")
            case .queued(let waiting):
                print("the hub cannot be reached: the tag waits on this device (\(waiting) waiting); `memora hub flush` sends it")
            }
        }
    }

    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The hub's people: add, list, rename, remove.",
                                                        subcommands: [AddPerson.self, ListPeople.self, Rename.self, Avatar.self, RemovePerson.self])

        /// A person given by id or name, as an id (nil for nil).
        static func id(_ name: String?, on hub: HubClient) async throws -> Int64? {
            guard let name else { return nil }
            return try await ids([name], on: hub).first
        }

        /// People given by id or by name (compared as the hub does), as ids.
        static func ids(_ names: [String], on hub: HubClient) async throws -> [Int64] {
            guard !names.isEmpty else { return [] }
            let people = try await hub.people()
            return try names.map { name in
                if let id = Int64(name), people.contains(where: { $0.id == id }) { return id }
                guard let person = people.first(where: { NameKey.of($0.name) == NameKey.of(name) }) else {
                    throw ValidationError("no person \(name) on the hub: memora hub people add \"\(name)\"")
                }
                return person.id
            }
        }

        struct AddPerson: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a person.")
            @OptionGroup var credentials: Credentials
            @Argument(help: "Their name.") var name: String
            @Option(help: "How they relate to the family: father, spouse, friend….") var relationship: String?

            func run() async throws {
                let person = try await credentials.client().addPerson(name: name, relationship: relationship)
                print("added \(TerminalText.escaped(person.name)) (person \(person.id))")
            }
        }

        struct ListPeople: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the people.")
            @OptionGroup var credentials: Credentials
            @Flag(help: "Print as JSON.") var json = false

            func run() async throws {
                let people = try await credentials.client().people()
                if json { try printJSON(people); return }
                if people.isEmpty { print("no people yet (memora hub people add NAME)") }
                for person in people {
                    print("\(person.id)  \(TerminalText.escaped(person.name))\(person.relationship.map { " (" + TerminalText.escaped($0) + ")" } ?? "")  \(person.memoryCount) memories")
                }
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Rename a person, or change their relationship.")
            @OptionGroup var credentials: Credentials
            @Argument(help: "The person, by name or id.") var person: String
            @Argument(help: "The new name.") var name: String
            @Option(help: "The relationship.") var relationship: String?

            func run() async throws {
                let hub = try credentials.client()
                let id = try await People.ids([person], on: hub)[0]
                let renamed = try await hub.updatePerson(id: id, name: name, relationship: relationship)
                print("person \(renamed.id) is now \(TerminalText.escaped(renamed.name))")
            }
        }

        struct Avatar: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Give a person an avatar (the hub keeps a 256-pixel copy).")
            @OptionGroup var credentials: Credentials
            @Argument(help: "The person, by name or id.") var person: String
            @Argument(help: "An image file: JPEG, PNG, HEIC, WebP or AVIF.") var image: String

            func run() async throws {
                let hub = try credentials.client()
                let id = try await People.ids([person], on: hub)[0]
                let updated = try await hub.setAvatar(person: id, image: image)
                print("\(TerminalText.escaped(updated.name)) has an avatar")
            }
        }

        struct RemovePerson: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a person (their face tags are untagged).")
            @OptionGroup var credentials: Credentials
            @Argument(help: "The person, by name or id.") var person: String

            func run() async throws {
                let hub = try credentials.client()
                let id = try await People.ids([person], on: hub)[0]
                try await hub.removePerson(id: id)
                print("removed person \(id)")
            }
        }
    }
}
