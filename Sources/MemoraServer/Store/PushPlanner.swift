internal import MemoraSync
internal import MemoraHTTP

/// A record's place in the server's data: its collection and key.
struct RowID: Sendable, Hashable {
    var collection: String
    var key: String
}

/// What a store knows of a record before a push: its version and whether it is a tombstone.
struct RowState: Sendable, Hashable {
    var version: Int64
    var deleted: Bool
    /// The owning device, for collections with an owner (kept on tombstones too).
    var owner: String?
}

/// A write a push makes: a record's new fields (or its tombstone) at the push's version.
struct RowWrite: Sendable, Hashable {
    var row: RowID
    var fields: [String: JSONValue]
    var deleted: Bool
}

/// What a push does, decided before anything is written: the same logic for every store
/// (Docs/Sync.md, "Push"). Pure: the store reads what it needs, plans, then writes it all in the same
/// transaction as the device's new last mutation number.
struct PushPlan: Sendable {
    /// The record writes, in order (a later write to the same record replaces an earlier one).
    var writes: [RowWrite] = []
    /// The mutations refused for good, with why (stored so that a replay answers the same).
    var rejections: [MutationResult] = []
    /// The results of every mutation of the request, in order.
    var results: [MutationResult] = []
    /// The device's last processed mutation after the push.
    var lastMutationID: Int64

    /// Plans a push.
    /// - Parameters:
    ///   - device: the authenticated device's id.
    ///   - lastMutationID: its last processed mutation before the push.
    ///   - mutations: the request's mutations (consecutive numbers, checked by ``PushPlan/checkNumbering(_:)``).
    ///   - rows: the current state of every record the new mutations touch.
    ///   - earlierRejections: the stored rejections of the request's already processed mutations.
    ///   - horizon: the server's tombstone retention horizon.
    ///   - missingObjects: objects the new mutations reference that are not uploaded.
    init(device: String, lastMutationID: Int64, mutations: [SyncMutation], rows: [RowID: RowState],
         earlierRejections: [Int64: MutationResult], horizon: Int64, missingObjects: Set<String>) {
        self.lastMutationID = lastMutationID
        var rows = rows
        for (index, mutation) in mutations.enumerated() {
            if mutation.id <= lastMutationID {
                results.append(earlierRejections[mutation.id] ?? MutationResult(id: mutation.id, status: .applied))
                continue
            }
            self.lastMutationID = mutation.id
            switch Self.check(mutation, index: index, device: device, rows: rows, horizon: horizon, missingObjects: missingObjects) {
            case .failure(let error):
                let result = MutationResult(id: mutation.id, status: .rejected, error: error)
                rejections.append(result)
                results.append(result)
            case .success(let write):
                writes.append(write)
                rows[write.row] = RowState(version: Int64.max, deleted: write.deleted, owner: device)
                results.append(MutationResult(id: mutation.id, status: .applied))
            }
        }
    }

    /// The record every mutation of a request touches (for the store's read), skipping invalid ones.
    static func rowsTouched(by mutations: [SyncMutation]) -> Set<RowID> {
        Set(mutations.compactMap { mutation in
            guard let collection = SyncSchema.collection(named: mutation.collection),
                  let key = collection.key(of: mutation.fields) else { return nil }
            return RowID(collection: collection.name, key: key)
        })
    }

    /// The objects every put of a request references.
    static func objectsReferenced(by mutations: [SyncMutation]) -> Set<String> {
        var objects = Set<String>()
        for mutation in mutations where mutation.op == .put {
            guard let collection = SyncSchema.collection(named: mutation.collection) else { continue }
            for field in collection.fields {
                guard case .objectList = field.kind, case .array(let items)? = mutation.fields[field.name] else { continue }
                for case .string(let hash) in items { objects.insert(hash) }
            }
        }
        return objects
    }

    /// The request-level checks of a push (a `400` when they fail): at most
    /// ``PushRequest/maxMutations``, numbered from 1 up to ``PushRequest/maxMutationID``, one more each.
    static func checkNumbering(_ mutations: [SyncMutation]) -> [FieldProblem] {
        if mutations.count > PushRequest.maxMutations {
            return [FieldProblem(field: "mutations", message: "has \(mutations.count) mutations; push at most \(PushRequest.maxMutations) at a time")]
        }
        for (index, mutation) in mutations.enumerated() {
            if mutation.id < 1 {
                return [FieldProblem(field: "mutations[\(index)].id", message: "mutation numbers start at 1")]
            }
            if mutation.id > PushRequest.maxMutationID {
                return [FieldProblem(field: "mutations[\(index)].id", message: "mutation numbers go up to \(PushRequest.maxMutationID)")]
            }
            // Both numbers are in 1...2^53 - 1 here, so the sum cannot overflow.
            if index > 0, mutation.id != mutations[index - 1].id + 1 {
                return [FieldProblem(field: "mutations[\(index)].id", message: "expected \(mutations[index - 1].id + 1): a push carries consecutive mutation numbers")]
            }
        }
        return []
    }

    private static func check(_ mutation: SyncMutation, index: Int, device: String, rows: [RowID: RowState],
                              horizon: Int64, missingObjects: Set<String>) -> Result<RowWrite, APIError> {
        let path = "mutations[\(index)]"
        guard let collection = SyncSchema.collection(named: mutation.collection) else {
            return .failure(APIError(code: "invalid_mutation", message: "no such collection",
                                     fields: [FieldProblem(field: "\(path).collection", message: "expected one of \(SyncSchema.collections.map(\.name).joined(separator: ", "))")]))
        }
        let problems = collection.validate(mutation.fields, path: "\(path).fields", keyOnly: mutation.op == .delete)
        guard problems.isEmpty, let key = collection.key(of: mutation.fields) else {
            return .failure(APIError(code: "invalid_mutation", message: "the mutation's fields are not valid", fields: problems))
        }
        let row = RowID(collection: collection.name, key: key)
        if let owner = collection.ownerField {
            let given = mutation.fields[owner]
            let stored = rows[row]?.owner
            if (mutation.op == .put || collection.keyFields.contains { $0.name == owner }) && given != .string(device) || stored.map({ $0 != device }) == true {
                return .failure(APIError(code: "forbidden", message: "a device writes only its own \(collection.name) records",
                                         fields: [FieldProblem(field: "\(path).fields.\(owner)", message: "must be this device's id")]))
            }
        }
        let base = mutation.baseVersion ?? 0
        if mutation.op == .put {
            if let state = rows[row], state.deleted, state.version > base {
                return .failure(APIError(code: "deleted", message: "the record was deleted (version \(state.version)) after the version this change was based on (\(base)); deleted records are not recreated"))
            }
            if rows[row] == nil, base > 0, base < horizon {
                return .failure(APIError(code: "deleted", message: "the record is gone and this change is older than the server's retention horizon"))
            }
            let missing = objectsReferencedSorted(mutation).filter(missingObjects.contains)
            if let first = missing.first {
                return .failure(APIError(code: "missing_object", message: "upload the photos first (PUT /api/objects/SHA256)",
                                         fields: [FieldProblem(field: "\(path).fields", message: "\(missing.count) object(s) not uploaded, the first \(first)")]))
            }
            var fields: [String: JSONValue] = [:]
            for field in collection.allFields { fields[field.name] = mutation.fields[field.name] ?? .null }
            return .success(RowWrite(row: row, fields: fields, deleted: false))
        }
        var fields: [String: JSONValue] = [:]
        for field in collection.allFields {
            fields[field.name] = collection.keyFields.contains(field) ? mutation.fields[field.name] ?? .null : .null
        }
        if let owner = collection.ownerField { fields[owner] = .string(device) }
        return .success(RowWrite(row: row, fields: fields, deleted: true))
    }

    private static func objectsReferencedSorted(_ mutation: SyncMutation) -> [String] {
        objectsReferenced(by: [mutation]).sorted()
    }
}
