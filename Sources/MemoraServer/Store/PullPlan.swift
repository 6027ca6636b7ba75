internal import MemoraSync
internal import MemoraHTTP

/// Where a page of a pull ends, decided the same way for every store (Docs/Sync.md, "Pull"): after
/// `limit` records, extended to the end of that record's version, so a page never splits a commit.
struct PullPlan: Sendable, Hashable {
    /// Changes with a version above this are in the page.
    var after: Int64
    /// Changes with a version up to this are in the page.
    var through: Int64
    /// Whether more changes follow.
    var hasMore: Bool
    /// Whether tombstones are sent (not to a device that starts from nothing).
    var includesTombstones: Bool

    /// Plans a page.
    /// - Parameters:
    ///   - after: the cursor's version.
    ///   - limit: the page's size in records.
    ///   - versions: for each pulled collection, the versions of its first `limit + 1` changes after the cursor.
    ///   - newestPulled: the newest version of any pulled collection's record.
    ///   - latest: the newest version the store assigned (the cursor moves there when nothing is left).
    init(after: Int64, limit: Int, versions: [[Int64]], newestPulled: Int64, latest: Int64) {
        self.after = after
        includesTombstones = after > 0
        let merged = versions.joined().sorted()
        if merged.count <= limit {
            through = latest
            hasMore = false
        } else {
            through = merged[limit - 1]
            hasMore = through < newestPulled
        }
        if !hasMore { through = max(through, latest) }
    }

    /// A pull's cursor, parsed; nil for none (from the start). A `400` for text that is not a cursor.
    static func cursor(_ text: String?) throws(ServerError) -> SyncCursor? {
        guard let text else { return nil }
        guard let cursor = SyncCursor(text) else {
            throw .invalidRequest("the cursor is not one this server gave", [FieldProblem(field: "cursor", message: "send the cursor of the last pull, or null to start over")])
        }
        return cursor
    }

    /// Whether a device's cursor cannot be served: from another database, from the future, or older
    /// than the retention horizon (version 0, the start, is always served: it needs no tombstones).
    static func needsReset(_ cursor: SyncCursor, epoch: String, horizon: Int64, latest: Int64) -> Bool {
        cursor.epoch != epoch || (cursor.version > 0 && cursor.version < horizon) || cursor.version > latest
    }
}
