public import Foundation
internal import MemoraDatabase
public import PhotoIndex
import MemoraSync

/// A place saved on this device or synced from the Memora server (Locify's places): a circle on the
/// map with a name. `memora collage --place NAME` uses its circle.
public struct SavedPlace: Sendable, Hashable, Codable {
    /// The place's id (a lower-case UUID).
    public var id: String
    /// Its name ("Grandma's house").
    public var name: String
    /// The circle's centre, in degrees.
    public var latitude: Double
    /// See ``latitude``; west is negative.
    public var longitude: Double
    /// The circle's radius in metres.
    public var radiusMeters: Double
    /// Notes, if any.
    public var notes: String?

    /// The photos taken inside the circle, as a collage's source.
    public var collageSource: CollageSource {
        .area(latitude: latitude, longitude: longitude, radiusKilometres: radiusMeters / 1000)
    }
}

/// The saved places in the caption database's sync replica: what this device saved, laid over what
/// the server sent (Docs/Sync.md). Saving and removing go through the outbox, for `memora sync`.
public struct SavedPlaces: Sendable {
    let database: CaptionDatabase

    /// The places kept in `database`.
    public init(database: CaptionDatabase) {
        self.database = database
    }

    /// Every place, by name.
    public func all() throws(MemoraError) -> [SavedPlace] {
        let records: [String: [String: JSONValue]]
        do { records = try database.syncReplica.records(in: SyncSchema.places) } catch { throw .places(error) }
        return records.compactMap { Self.place($0.value) }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// Saves a new place (queued for the server) and returns it.
    @discardableResult
    public func add(name: String, latitude: Double, longitude: Double, radiusMeters: Double = 100, notes: String? = nil,
                    now: Date? = nil) throws(MemoraError) -> SavedPlace {
        let now = now ?? database.clock.now()
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        var fields: [String: JSONValue] = [
            "id": .string(UUID().uuidString.lowercased()), "name": .string(name), "latitude": .number(latitude),
            "longitude": .number(longitude), "radius_meters": .number(radiusMeters),
            "created_at": .integer(Instant.milliseconds(now)),
        ]
        if let notes { fields["notes"] = .string(notes) }
        if name.isEmpty { throw MemoraError(.invalidPlace, "a place needs a name") }
        do {
            _ = try database.syncReplica.put(SyncSchema.places, fields)
        } catch where error.code == .invalidRecord {
            let words = error.problems.map { "\($0.field.split(separator: ".").last.map(String.init) ?? $0.field) \($0.message)" }
            throw MemoraError(.invalidPlace, "the place cannot be saved: " + words.joined(separator: "; "))
        } catch {
            throw .places(error)
        }
        guard let place = Self.place(fields) else { throw MemoraError(.invalidPlace, "the place cannot be saved") }
        return place
    }

    /// The place called `nameOrID` (its id, or its name compared without case and surrounding
    /// spaces); nil when there is none. Several places with that name are an error naming their ids.
    public func place(named nameOrID: String) throws(MemoraError) -> SavedPlace? {
        let wanted = NameKey.of(nameOrID)
        let places = try all()
        if let byID = places.first(where: { $0.id == nameOrID }) { return byID }
        let matches = places.filter { NameKey.of($0.name) == wanted }
        if matches.count > 1 { throw .placeAmbiguous(nameOrID, ids: matches.map(\.id)) }
        return matches.first
    }

    /// What `memora collage --place NAME` shows: the circle of the saved place called `name` when there
    /// is one, else the photos whose place name (from their metadata) matches `name`.
    public func collageSource(place name: String) throws(MemoraError) -> (source: CollageSource, saved: SavedPlace?) {
        if let saved = try place(named: name) { return (saved.collageSource, saved) }
        return (.place(name), nil)
    }

    /// Removes the place called `nameOrID` (queued for the server) and returns it.
    @discardableResult
    public func remove(_ nameOrID: String) throws(MemoraError) -> SavedPlace {
        guard let place = try place(named: nameOrID) else { throw .placeNotFound(nameOrID) }
        do { _ = try database.syncReplica.delete(SyncSchema.places, key: ["id": .string(place.id)]) } catch { throw .places(error) }
        return place
    }

    /// The place a synced record holds, if it is complete.
    static func place(_ fields: [String: JSONValue]) -> SavedPlace? {
        func number(_ key: String) -> Double? {
            switch fields[key] {
            case .number(let value)?: value
            case .integer(let value)?: Double(value)
            default: nil
            }
        }
        guard case .string(let id)? = fields["id"], case .string(let name)? = fields["name"],
              let latitude = number("latitude"), let longitude = number("longitude"), let radius = number("radius_meters") else { return nil }
        var notes: String?
        if case .string(let text)? = fields["notes"] { notes = text }
        return SavedPlace(id: id, name: name, latitude: latitude, longitude: longitude, radiusMeters: radius, notes: notes)
    }
}
