public import Foundation
public import MemoraSync
import GRDB
import MemoraDatabase

/// The single-row `preferences` table: the user's choices.
public struct CaptionPreferences: Sendable, Hashable, Codable {
    /// Whether captioning may run in the background.
    public var backgroundEnabled: Bool
    /// Where captions are made.
    public var aiMode: CaptionMode
    /// Whether the gallery scanner queues photos that appear after its first scan.
    public var autoProcessNew: Bool
    /// Whether the gallery scanner queues the photos that were already there.
    public var processExisting: Bool
    /// Whether cloud modes wait for Wi-Fi (or Ethernet).
    public var wifiOnly: Bool
    /// Whether batches run only while the device is charging.
    public var chargingOnly: Bool
    /// When they last changed.
    public var updatedAt: Date

    /// The keys `memora prefs set` accepts, as the seed's column names.
    public static let keys = ["background_enabled", "ai_mode", "auto_process_new", "process_existing", "wifi_only", "charging_only"]

    /// The preferences as the sync server's `preferences` record of `device`.
    public func syncFields(device: String) -> [String: JSONValue] {
        ["device_id": .string(device), "background_enabled": .bool(backgroundEnabled), "ai_mode": .string(aiMode.rawValue),
         "auto_process_new": .bool(autoProcessNew), "process_existing": .bool(processExisting), "wifi_only": .bool(wifiOnly),
         "charging_only": .bool(chargingOnly), "updated_at": .integer(Instant.milliseconds(updatedAt))]
    }

    /// The value of `key` as text.
    public func value(of key: String) -> String? {
        switch key {
        case "background_enabled": String(backgroundEnabled)
        case "ai_mode": aiMode.rawValue
        case "auto_process_new": String(autoProcessNew)
        case "process_existing": String(processExisting)
        case "wifi_only": String(wifiOnly)
        case "charging_only": String(chargingOnly)
        default: nil
        }
    }
}

extension CaptionDatabase {
    /// The current preferences.
    public func preferences() throws(MemoraError) -> CaptionPreferences {
        try read { db in
            guard let row = try PreferencesRecord.fetchOne(db, id: 1) else { throw MemoraError.queryFailed(reason: "the preferences row is missing") }
            return row.preferences
        }
    }

    /// Sets one preference from text (`true`/`false`/`1`/`0`/`yes`/`no`, or a mode for `ai_mode`).
    public func setPreference(_ key: String, to text: String) throws(MemoraError) {
        let value = try Self.preferenceValue(key, text)
        try write { db in
            // `key` is one of the fixed column names checked above.
            _ = try PreferencesRecord.filter(id: 1).updateAll(db, Column(key).set(to: value), Column("updated_at").set(to: clock.milliseconds()))
            // A device that syncs queues the change in the same transaction.
            try Self.queuePreferences(in: db)
        }
    }

    /// Queues the preferences as they are for the sync server, when this device has joined one.
    static func queuePreferences(in db: Database) throws {
        guard let device = try SyncReplica.deviceID(in: db),
              let preferences = try PreferencesRecord.fetchOne(db, id: 1)?.preferences else { return }
        _ = try SyncReplica.enqueue(.put, SyncSchema.preferences, preferences.syncFields(device: device), in: db)
    }

    /// A dry run of ``setPreference(_:to:)``: the value as it would be shown (`gemini`, `true`),
    /// after the same checks; nothing is written.
    public func checkPreference(_ key: String, to text: String) throws(MemoraError) -> String {
        let value = try Self.preferenceValue(key, text)
        if let flag = value as? Int { return flag == 1 ? "true" : "false" }
        return "\(value)"
    }

    /// The stored value of preference `key` given as `text`, or why it cannot be.
    private static func preferenceValue(_ key: String, _ text: String) throws(MemoraError) -> any DatabaseValueConvertible {
        guard CaptionPreferences.keys.contains(key) else {
            throw .invalidPreference(key: key, reason: "unknown key; known keys: " + CaptionPreferences.keys.joined(separator: ", "))
        }
        let value: any DatabaseValueConvertible
        if key == "ai_mode" {
            guard let mode = CaptionMode(parsing: text) else {
                throw .invalidPreference(key: key, reason: "'\(text)' is not a mode; use on-device, gemini or gpt")
            }
            value = mode.rawValue
        } else {
            switch text.lowercased() {
            case "true", "1", "yes", "on": value = 1
            case "false", "0", "no", "off": value = 0
            default: throw .invalidPreference(key: key, reason: "'\(text)' is not true or false")
            }
        }
        return value
    }
}
