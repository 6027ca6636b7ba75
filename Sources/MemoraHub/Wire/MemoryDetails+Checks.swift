package import MemoraHTTP
internal import MemoraSync

extension MemoryDetails {
    /// The most characters (Unicode code points) a memory's description may have: 5,000, or 100,000
    /// for the text of a text memory.
    package static func descriptionLimit(for kind: MemoryKind) -> Int { kind == .text ? 100_000 : 5000 }

    /// The most characters an extended description may have.
    package static let extendedDescriptionLimit = 10_000

    /// What is wrong with a title (already trimmed), or nil: it is required, at most 200 characters,
    /// without control characters or direction overrides.
    package static func titleProblem(_ title: String) -> String? {
        title.isEmpty ? "required" : SyncValueCheck.textProblem(title, maxLength: 200, isName: true)
    }

    /// What is wrong with the details, each problem named by its field after `prefix`
    /// (`metadata.title`): the title (``titleProblem(_:)``), the texts' lengths and characters, a
    /// date before the year 10000, a position given whole and on the globe. Empty when nothing is.
    package func problems(prefix: String = "") -> [FieldProblem] {
        var problems: [FieldProblem] = []
        func add(_ field: String, _ message: String?) {
            if let message { problems.append(FieldProblem(field: prefix + field, message: message)) }
        }
        add("title", Self.titleProblem(title))
        add("description", description.flatMap { SyncValueCheck.textProblem($0, maxLength: Self.descriptionLimit(for: kind)) })
        add("extendedDescription", extendedDescription.flatMap { SyncValueCheck.textProblem($0, maxLength: Self.extendedDescriptionLimit) })
        add("place", place.flatMap { SyncValueCheck.textProblem($0, maxLength: 200) })
        if let takenAt, !SyncValueCheck.timestamps.contains(takenAt) { add("takenAt", "milliseconds since 1970, before the year 10000") }
        if (latitude == nil) != (longitude == nil) { add("latitude", "give latitude and longitude together") }
        if let latitude, !(-90...90).contains(latitude) { add("latitude", "between -90 and 90") }
        if let longitude, !(-180...180).contains(longitude) { add("longitude", "between -180 and 180") }
        return problems
    }
}
