internal import Foundation
internal import MemoraSync
internal import MemoraServer
internal import MemoraSystem

/// The sync part of `make demo`: a server on loopback (SQLite in `folder/server`) and two simulated
/// devices, each with its own replica and token, that save places offline, sync, edit and delete,
/// and end with the same data.
package enum SyncDemo {
    /// What the demo did.
    package struct Report: Sendable, Codable {
        /// The server's address during the demo.
        package var server: String
        /// What happened, one line per step.
        package var steps: [String]
        /// The places each device ends with, by name.
        package var placesPerDevice: [[String]]
        /// Whether both devices ended with the same records as the server.
        package var converged: Bool
    }

    /// Runs the demo in `folder` (created; a previous run's data is replaced).
    package static func run(folder: String) async throws -> Report {
        try? FileManager.default.removeItem(atPath: folder)
        let data = try await ServerData.open(folder + "/server")
        var configuration = ServerConfiguration(joinCode: data.joinCode)
        configuration.port = 0
        configuration.logger.logLevel = .critical
        let server = SyncServer(configuration: configuration, data: data)
        let running = try await server.start()
        let url = running.url
        return try await withAsyncCleanup {
            var steps: [String] = []
            let devices = try ["phone", "laptop"].map { name in
                (name: name, client: SyncClient(replica: try SyncReplica(path: "\(folder)/\(name)/replica.sqlite"),
                                                credentials: SyncCredentialFile(path: "\(folder)/\(name)/credentials.json")))
            }
            let phone = devices[0].client, laptop = devices[1].client
            func place(_ id: String, _ name: String, _ latitude: Double, _ longitude: Double, radius: Double) -> [String: JSONValue] {
                ["id": .string(id), "name": .string(name), "latitude": .number(latitude), "longitude": .number(longitude), "radius_meters": .number(radius)]
            }
            let grandma = "7d3e1a52-8f4b-4c1e-9a57-0c6f2b1d9e01", beach = "c2b8f0d4-3e6a-4b9f-8d21-5a7e9c0f1b02"
            try phone.replica.put(SyncSchema.places, place(grandma, "Grandma's house", 41.1496, -8.6109, radius: 150))
            steps.append("phone (offline): saved Grandma's house; 1 change queued")
            try laptop.replica.put(SyncSchema.places, place(beach, "Beach at Matosinhos", 41.1780, -8.6920, radius: 400))
            steps.append("laptop (offline): saved Beach at Matosinhos; 1 change queued")
            for device in devices {
                let report = try await device.client.sync(server: url, joinCode: data.joinCode)
                steps.append("\(device.name): joined and synced: \(report.pushed) pushed, \(report.pulled) pulled")
            }
            let again = try await phone.sync(server: url)
            steps.append("phone: synced again: \(again.pulled) pulled (the laptop's place)")
            // Both edit the same place; the server's order decides (the laptop's edit arrives last).
            try phone.replica.put(SyncSchema.places, place(grandma, "Grandma's house (garden gate)", 41.1496, -8.6109, radius: 150))
            try laptop.replica.put(SyncSchema.places, place(grandma, "Grandma's", 41.1496, -8.6109, radius: 200))
            _ = try await phone.sync(server: url)
            _ = try await laptop.sync(server: url)
            try phone.replica.delete(SyncSchema.places, key: ["id": .string(beach)])
            _ = try await phone.sync(server: url)
            _ = try await laptop.sync(server: url)
            _ = try await phone.sync(server: url)
            steps.append("both edited Grandma's house (the laptop's edit reached the server last and wins); the phone deleted the beach")
            var names: [[String]] = []
            var records: [[String: [String: JSONValue]]] = []
            for device in devices {
                let places = try device.client.replica.records(in: SyncSchema.places)
                records.append(places)
                names.append(places.values.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }.sorted())
            }
            let observer = SyncClient(replica: try SyncReplica(path: "\(folder)/observer/replica.sqlite"),
                                      credentials: SyncCredentialFile(path: "\(folder)/observer/credentials.json"))
            _ = try await observer.sync(server: url, joinCode: data.joinCode)
            let truth = try observer.replica.records(in: SyncSchema.places)
            var converged = records.allSatisfy { $0 == truth }
            for device in devices where try device.client.replica.pendingCount() > 0 { converged = false }
            return Report(server: url.absoluteString, steps: steps, placesPerDevice: names, converged: converged)
        } cleanup: {
            await running.stop()
        }
    }
}
