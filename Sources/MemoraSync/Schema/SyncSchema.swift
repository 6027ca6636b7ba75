/// The collections a Memora server syncs: the seed's caption state, history, preferences and error
/// reports, and Locify's places and categories.
public enum SyncSchema {
    /// The largest caption or alt text a record carries.
    public static let maxCaptionLength = 4000

    /// A device's caption state for one photo (the seed's `processing_state`; one row per device and photo).
    public static let processingState = SyncCollection(
        name: "processing_state",
        keyFields: [SyncField("device_id", .deviceID, required: true), SyncField("image_hash", .sha256, required: true)],
        fields: [
            SyncField("status", .choice(["pending", "processing", "completed", "failed"]), required: true),
            SyncField("caption", .text(maxLength: maxCaptionLength)),
            SyncField("model_used", .text(maxLength: 40)),
            SyncField("error_message", .text(maxLength: 2000)),
            SyncField("retry_count", .integer(0...1000)),
            SyncField("created_at", .timestamp),
            SyncField("updated_at", .timestamp),
        ],
        ownerField: "device_id")

    /// One caption a device wrote (the seed's `caption_history`).
    public static let captionHistory = SyncCollection(
        name: "caption_history",
        keyFields: [SyncField("id", .identifier, required: true)],
        fields: [
            SyncField("device_id", .deviceID, required: true),
            SyncField("image_hash", .sha256, required: true),
            SyncField("caption", .text(maxLength: maxCaptionLength), required: true),
            SyncField("model_used", .text(maxLength: 40), required: true),
            SyncField("was_manual_edit", .boolean),
            SyncField("created_at", .timestamp),
        ],
        ownerField: "device_id")

    /// A device's preferences (the seed's `preferences`, one row per device).
    public static let preferences = SyncCollection(
        name: "preferences",
        keyFields: [SyncField("device_id", .deviceID, required: true)],
        fields: [
            SyncField("background_enabled", .boolean),
            SyncField("ai_mode", .choice(["on-device", "gemini", "gpt"])),
            SyncField("auto_process_new", .boolean),
            SyncField("process_existing", .boolean),
            SyncField("wifi_only", .boolean),
            SyncField("charging_only", .boolean),
            SyncField("updated_at", .timestamp),
        ],
        ownerField: "device_id")

    /// An error a device reports (the seed's `error_logs`): pushed, never pulled.
    public static let errorLogs = SyncCollection(
        name: "error_logs",
        keyFields: [SyncField("id", .identifier, required: true)],
        fields: [
            SyncField("device_id", .deviceID, required: true),
            SyncField("error_type", .text(maxLength: 50), required: true),
            SyncField("error_message", .text(maxLength: 2000)),
            SyncField("context", .jsonObject(maxMembers: 8, maxNameLength: 32, maxTextLength: 120)),
            SyncField("created_at", .timestamp),
        ],
        ownerField: "device_id", pulled: false)

    /// A category of places (Locify's).
    public static let categories = SyncCollection(
        name: "categories",
        keyFields: [SyncField("id", .identifier, required: true)],
        fields: [
            SyncField("name", .text(maxLength: 100), required: true),
            SyncField("created_at", .timestamp),
        ])

    /// A saved place (Locify's): a circle on the map with a name, a category, notes and photos.
    public static let places = SyncCollection(
        name: "places",
        keyFields: [SyncField("id", .identifier, required: true)],
        fields: [
            SyncField("name", .text(maxLength: 200), required: true),
            SyncField("latitude", .real(-90...90), required: true),
            SyncField("longitude", .real(-180...180), required: true),
            SyncField("radius_meters", .real(1...1_000_000), required: true),
            SyncField("category_id", .identifier),
            SyncField("notes", .text(maxLength: 5000)),
            SyncField("photos", .objectList(maxCount: 100)),
            SyncField("created_at", .timestamp),
        ])

    /// Every collection, in the order the server creates their tables.
    public static let collections: [SyncCollection] = [processingState, captionHistory, preferences, errorLogs, categories, places]

    /// The collection with this name.
    public static func collection(named name: String) -> SyncCollection? {
        collections.first { $0.name == name }
    }
}
