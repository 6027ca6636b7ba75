import ArgumentParser
import Foundation
import MemoraServer
import MemoraSystem

/// `memora-server`: the Memora sync server (Docs/Sync.md).
@main
struct MemoraServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memora-server",
        abstract: "The Memora sync server: devices push and pull captions, history, preferences and places.",
        version: SyncServer.version,
        subcommands: [Run.self, Pair.self, Dashboard.self, Devices.self, Revoke.self, JoinCode.self],
        defaultSubcommand: Run.self)
}

/// Options every subcommand shares: where the server keeps its data.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "The server's folder: its SQLite database, uploaded photos and join code.")
    var data: String = ServerData.defaultFolder
    @Option(name: .long, help: "Keep the data in PostgreSQL instead of SQLite: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or MEMORA_DATABASE_URL).")
    var database: String?

    func open() async throws -> ServerData {
        try await ServerData.open(data, database: database ?? ProcessInfo.processInfo.environment["MEMORA_DATABASE_URL"])
    }
}

extension MemoraServerCommand {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Runs the server (the default).")
        @OptionGroup var options: DataOptions
        @Option(help: "The address to listen on; 0.0.0.0 for every network.") var host = "127.0.0.1"
        @Option(help: "The port; 0 picks a free one.") var port = 8787
        @Option(name: .customLong("trusted-proxy"), help: "The address of a reverse proxy in front of the server (repeat for several): its X-Forwarded-For is believed.")
        var trustedProxies: [String] = []
        @Option(name: .customLong("server-name"), help: "A name the dashboard is reached by besides this machine's addresses (repeat for several): the name a reverse proxy serves.")
        var serverNames: [String] = []
        @Option(name: .customLong("log-level"), help: "How much to log on standard error: notice (starts, registrations), info (also one line per request: method, route, status, milliseconds), debug.")
        var logLevel = "notice"

        func validate() throws {
            guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) else {
                throw ValidationError("--log-level is one of trace, debug, info, notice, warning, error, critical")
            }
        }

        func run() async throws {
            let data = try await options.open()
            var configuration = ServerConfiguration(joinCode: data.joinCode)
            configuration.host = host
            configuration.port = port
            configuration.trustedProxies = trustedProxies
            configuration.serverNames = serverNames
            configuration.logger.logLevel = .init(rawValue: logLevel) ?? .notice
            let server = SyncServer(configuration: configuration, data: data)
            let host = self.host
            let folder = options.data
            try await server.run { port in
                // Written unbuffered: a script waiting for this line sees it at once, even through a pipe.
                let text = "memora-server listening on http://\(host):\(port) (\(data.storeDescription))\n"
                    + "devices join with the code that `memora-server join-code --data \(folder)` prints\n"
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the registered devices.")
        @OptionGroup var options: DataOptions

        func run() async throws {
            let data = try await options.open()
            let devices = try await data.store.devices()
            if devices.isEmpty { print("no devices yet") }
            for device in devices {
                let state = device.revokedAt == nil ? "active" : "revoked"
                print("\(device.deviceID)  \(device.platform)  \(state)  last mutation \(device.lastMutationID)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revokes a device's token for good.")
        @OptionGroup var options: DataOptions
        @Argument(help: "The device's id (memora-server devices lists them).") var device: String

        func run() async throws {
            let data = try await options.open()
            guard try await data.store.revoke(deviceID: device) else {
                throw ValidationError("no device \(device): memora-server devices lists them")
            }
            print("revoked \(device)")
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shows the QR code a Memory Palace collector scans to pair with this hub (works once, for a few minutes).")
        @OptionGroup var options: DataOptions
        @Option(help: "The address devices reach the hub at (default: where the running hub listens; its private network address when it listens on every network).") var host: String?
        @Option(help: "The port devices reach the hub at (default: the running hub's).") var port: Int?
        @Option(help: "How many minutes the code works (1-60).") var minutes = 10
        @Flag(help: "Print only the QR code's JSON.") var json = false

        func run() async throws {
            guard (1...60).contains(minutes) else { throw ValidationError("--minutes is between 1 and 60") }
            let data = try await options.open()
            let address = data.hubAddress(host: host, port: port)
            let config = try await data.pairingCode(host: address.host, port: address.port, lifetimeSeconds: Int64(minutes) * 60)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let text = String(decoding: try encoder.encode(config), as: UTF8.self)
            if json { print(text); return }
            guard let code = QRCode(text) else { throw ValidationError("the pairing code does not fit a QR code") }
            print(code.terminalText)
            print("Devices reach the hub at \(address.host):\(address.port): \(address.reason).")
            print("Scan this with the collector, or give its text to `memora hub pair`:\n\(text)")
            print("It works once, for \(minutes) minutes.")
        }
    }

    struct Dashboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints the dashboard's address with its key: the only way in, from this machine too.")
        @OptionGroup var options: DataOptions
        @Option(help: "The address the browser reaches the hub at (default: where the running hub listens).") var host: String?
        @Option(help: "The port the browser reaches the hub at (default: the running hub's).") var port: Int?
        @Flag(help: "Make a new key: every browser signed in with the old one is signed out at once, and the old key no longer opens the dashboard.")
        var rotate = false

        func run() async throws {
            let data = try await options.open()
            let address = data.hubAddress(host: host, port: port)
            let shown = address.host.contains(":") ? "[\(address.host)]" : address.host
            let key = rotate ? try await data.rotateDashboardKey() : data.dashboardKey
            print("http://\(shown):\(address.port)/?key=\(key)")
            FileHandle.standardError.write(Data("(\(address.reason); the key is a password: share it only with the family)\n".utf8))
        }
    }

    struct JoinCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints the code devices give to join this server; --rotate replaces it (a code that leaked stops working).")
        @OptionGroup var options: DataOptions
        @Flag(help: "Make a new code: devices already registered keep working; new ones need the new code. Restart the server to use it.")
        var rotate = false

        func run() async throws {
            let data = try await options.open()
            guard rotate else { print(data.joinCode); return }
            print(try await data.rotateJoinCode())
            let running = data.isServerRunning ? " The server running on this folder still takes the old code until it restarts." : ""
            FileHandle.standardError.write(Data("The old code no longer registers new devices once the servers on this database restart.\(running)\n".utf8))
        }
    }
}
