import ArgumentParser
import Foundation
import MemoraCore
import MemoraSync

/// `memora sync`: push this device's changes to a Memora server, then pull the others'.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync preferences and places with a Memora server (memora-server).",
        discussion: """
            The first sync joins the server: give its address and the code that `memora-server join-code` prints. \
            Later syncs remember both the server and this device's token. Changes made offline wait in the outbox; \
            a failed sync leaves them there.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The server's address, for example http://192.168.1.20:8787 (remembered after the first sync).") var server: String?
    @Option(name: .customLong("join"), help: "The server's join code (the first sync only).") var joinCode: String?
    @Flag(help: "Sync even when wifi_only is set and this device is not on Wi-Fi or Ethernet.") var anyNetwork = false
    @Option(help: "Where this device's token is kept (0600).") var credentials: String = SyncJob.defaultCredentialsPath
    @Flag(help: "Print as JSON.") var json = false
    @Flag(name: .shortAndLong, help: "Print nothing but errors.") var quiet = false

    func run() async throws {
        let file = SyncCredentialFile(path: credentials)
        let saved = try file.load()?.server
        guard let address = server.flatMap(URL.init(string:)) ?? saved else {
            throw ValidationError("give the server's address: memora sync --server http://HOST:8787 --join CODE")
        }
        guard address.scheme == "http" || address.scheme == "https" else {
            throw ValidationError("the server's address must start with http:// or https://")
        }
        let report = try await SyncJob(database: try database.open(), credentials: file).run(server: address, joinCode: joinCode, ignoringNetwork: anyNetwork)
        if json {
            try printJSON(SyncSummary(report))
        } else if !quiet {
            print("synced with \(address.absoluteString) as device \(report.deviceID)\(report.registered ? " (joined)" : ""): "
                  + "\(report.pushed) change(s) pushed, \(report.rejected) refused, \(report.pulled) record(s) pulled\(report.reset ? " (started over)" : "")")
        }
    }
}

/// `memora sync --json`.
struct SyncSummary: Encodable {
    let deviceId: String
    let registered: Bool
    let pushed: Int
    let rejected: Int
    let pulled: Int
    let reset: Bool

    init(_ report: SyncReport) {
        deviceId = report.deviceID
        registered = report.registered
        pushed = report.pushed
        rejected = report.rejected
        pulled = report.pulled
        reset = report.reset
    }
}

/// `memora places add|list|remove`: saved places (Locify's), synced with `memora sync`.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places", abstract: "Save, list and remove places (circles on the map), synced with memora sync.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save a place.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The place's name, for example \"Grandma's house\".") var name: String
        @Option(parsing: .unconditional, help: "Latitude in degrees (-90 to 90).") var latitude: Double
        @Option(parsing: .unconditional, help: "Longitude in degrees (-180 to 180; west is negative).") var longitude: Double
        @Option(help: "The circle's radius in metres.") var radius: Double = 100
        @Option(help: "Notes.") var notes: String?
        @Flag(name: .shortAndLong, help: "Print nothing but errors.") var quiet = false

        func run() throws {
            let place = try SavedPlaces(database: database.open()).add(name: name, latitude: latitude, longitude: longitude, radiusMeters: radius, notes: notes)
            if !quiet { print("saved \(TerminalText.escaped(place.name)) (syncs with the next memora sync)") }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the saved places.")
        @OptionGroup var database: DatabaseOptions
        @Flag(help: "Print as JSON.") var json = false

        func run() throws {
            let places = try SavedPlaces(database: database.open()).all()
            if json { try printJSON(places); return }
            if places.isEmpty { print("no places saved (memora places add NAME --latitude … --longitude …)") }
            for place in places {
                print("\(TerminalText.escaped(place.name))  \(String(format: "%.5f, %.5f", place.latitude, place.longitude))  \(Int(place.radiusMeters)) m  \(place.id)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a saved place, by name or id.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The place's name or id.") var place: String
        @Flag(name: .shortAndLong, help: "Print nothing but errors.") var quiet = false

        func run() throws {
            let removed = try SavedPlaces(database: database.open()).remove(place)
            if !quiet { print("removed \(TerminalText.escaped(removed.name)) (syncs with the next memora sync)") }
        }
    }
}
