@testable import MemoraServer
import MemoraSync
import MemoraHTTP
import ServerTestSupport
import Testing

/// What a push does, planned before anything is written (Docs/Sync.md, "Push"): each new mutation
/// checked and applied or refused for good, replays answered as before, the numbering checked.
@Suite("PushPlan")
struct PushPlanTests {
    static let device = "device-planner00001"
    static let other = "device-someone00002"
    static let photoA = String(repeating: "a", count: 64), photoB = String(repeating: "b", count: 64)

    static func plan(_ mutations: [SyncMutation], last: Int64 = 0, rows: [RowID: RowState] = [:], earlier: [Int64: MutationResult] = [:],
                     horizon: Int64 = 0, missing: Set<String> = []) -> PushPlan {
        PushPlan(device: device, lastMutationID: last, mutations: mutations, rows: rows, earlierRejections: earlier, horizon: horizon, missingObjects: missing)
    }

    static func state(device: String, hash: String = photoA) -> [String: JSONValue] {
        ["device_id": .string(device), "image_hash": .string(hash), "status": .string("completed")]
    }

    static func placeRow(_ n: Int) -> RowID { RowID(collection: "places", key: Records.uuid(n)) }

    @Test("new mutations are planned in order: a put writes every field (null when not given), a delete a tombstone of its key")
    func applied() throws {
        let plan = Self.plan([
            SyncMutation(id: 5, collection: "places", op: .put, fields: Records.place(1, name: "Porto")),
            SyncMutation(id: 6, collection: "categories", op: .put, fields: ["id": .string(Records.uuid(2)), "name": .string("Cafés")]),
            SyncMutation(id: 7, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(3))]),
        ], last: 4)
        #expect(plan.results == [5, 6, 7].map { MutationResult(id: $0, status: .applied) })
        #expect(plan.rejections.isEmpty)
        #expect(plan.lastMutationID == 7)
        try #require(plan.writes.count == 3)
        let put = plan.writes[0]
        #expect(put.row == Self.placeRow(1) && !put.deleted)
        #expect(Set(put.fields.keys) == Set(SyncSchema.places.allFields.map(\.name)))
        #expect(put.fields["name"] == .string("Porto") && put.fields["notes"] == .null && put.fields["photos"] == .null)
        #expect(plan.writes[1].row == RowID(collection: "categories", key: Records.uuid(2)))
        let delete = plan.writes[2]
        #expect(delete.row == Self.placeRow(3) && delete.deleted)
        #expect(delete.fields.filter { $0.value != .null } == ["id": .string(Records.uuid(3))])
        #expect(Set(delete.fields.keys) == Set(SyncSchema.places.allFields.map(\.name)))
    }

    @Test("mutations already processed are not planned again: a stored rejection comes back as it was, the others as applied")
    func replay() {
        let stored = MutationResult(id: 5, status: .rejected, error: APIError(code: "invalid_mutation", message: "as before"))
        let plan = Self.plan([
            SyncMutation(id: 5, collection: "places", op: .put, fields: Records.place(1, name: "Porto")),
            SyncMutation(id: 6, collection: "places", op: .put, fields: Records.place(2, name: "Braga")),
            SyncMutation(id: 7, collection: "places", op: .put, fields: Records.place(3, name: "Faro")),
        ], last: 6, earlier: [5: stored])
        #expect(plan.results == [stored, MutationResult(id: 6, status: .applied), MutationResult(id: 7, status: .applied)])
        #expect(plan.writes.map(\.row) == [Self.placeRow(3)])
        #expect(plan.rejections.isEmpty, "a replayed rejection is not stored again")
        #expect(plan.lastMutationID == 7)

        let whole = Self.plan([SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "Porto"))], last: 9)
        #expect(whole.writes.isEmpty && whole.lastMutationID == 9 && whole.results == [MutationResult(id: 1, status: .applied)])
    }

    @Test("an invalid mutation is refused for good, naming its field, and counts as processed; the ones after it still apply")
    func invalid() throws {
        var farNorth = Records.place(2, name: "Pole")
        farNorth["latitude"] = .number(91)
        let plan = Self.plan([
            SyncMutation(id: 1, collection: "planets", op: .put, fields: ["id": .string(Records.uuid(1))]),
            SyncMutation(id: 2, collection: "places", op: .put, fields: farNorth),
            SyncMutation(id: 3, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(4)), "name": .string("x")]),
            SyncMutation(id: 4, collection: "places", op: .put, fields: Records.place(5, name: "Porto")),
        ])
        #expect(plan.results.map(\.status) == [.rejected, .rejected, .rejected, .applied])
        #expect(plan.rejections == Array(plan.results.prefix(3)))
        #expect(plan.lastMutationID == 4)
        #expect(plan.writes.map(\.row) == [Self.placeRow(5)])
        #expect(plan.results.prefix(3).allSatisfy { $0.error?.code == "invalid_mutation" })
        #expect(plan.results[0].error?.fields?.map(\.field) == ["mutations[0].collection"])
        #expect(plan.results[1].error?.fields?.map(\.field) == ["mutations[1].fields.latitude"])
        #expect(plan.results[2].error?.fields?.map(\.field) == ["mutations[2].fields.name"], "a delete gives only the key")
    }

    @Test("a device writes only its own records of an owned collection: the owner it gives and the owner stored must be it")
    func owner() {
        let hash = Self.photoA
        let ownRow = RowID(collection: "processing_state", key: "\(Self.device)/\(hash)")
        let history = RowID(collection: "caption_history", key: Records.uuid(8))
        let plan = Self.plan([
            SyncMutation(id: 1, collection: "processing_state", op: .put, fields: Self.state(device: Self.other)),
            SyncMutation(id: 2, collection: "processing_state", op: .put, fields: Self.state(device: Self.device)),
            SyncMutation(id: 3, collection: "caption_history", op: .delete, fields: ["id": .string(Records.uuid(8))]),
            SyncMutation(id: 4, collection: "preferences", op: .delete, fields: ["device_id": .string(Self.other)]),
            SyncMutation(id: 5, collection: "caption_history", op: .delete, fields: ["id": .string(Records.uuid(9))]),
        ], rows: [history: RowState(version: 3, deleted: false, owner: Self.other)])
        #expect(plan.results.map(\.status) == [.rejected, .applied, .rejected, .rejected, .applied])
        #expect(plan.results[0].error?.code == "forbidden")
        #expect(plan.results[0].error?.fields?.map(\.field) == ["mutations[0].fields.device_id"])
        #expect(plan.results[2].error?.code == "forbidden", "another device's history entry is not deleted")
        #expect(plan.results[3].error?.code == "forbidden", "another device's preferences are not deleted")
        #expect(plan.writes.map(\.row) == [ownRow, RowID(collection: "caption_history", key: Records.uuid(9))])
        #expect(plan.writes[1].fields["device_id"] == .string(Self.device), "a tombstone keeps its owner")
    }

    @Test("a record another device owns is refused even when the push names this device as its owner")
    func storedOwnerWins() {
        let row = RowID(collection: "caption_history", key: Records.uuid(8))
        let fields: [String: JSONValue] = ["id": .string(Records.uuid(8)), "device_id": .string(Self.device), "image_hash": .string(Self.photoA),
                                           "caption": .string("A dog"), "model_used": .string("llava")]
        let plan = Self.plan([SyncMutation(id: 1, collection: "caption_history", op: .put, fields: fields)],
                             rows: [row: RowState(version: 2, deleted: true, owner: Self.other)])
        #expect(plan.results.map(\.error?.code) == ["forbidden"])
        #expect(plan.writes.isEmpty)
    }

    @Test("no resurrection: a put based on a version older than the record's tombstone is refused; one that saw the deletion applies",
          arguments: [(Int64?.none, false), (Int64(9), false), (10, true), (12, true)])
    func tombstone(base: Int64?, applies: Bool) {
        let plan = Self.plan([SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "Porto"), baseVersion: base)],
                             rows: [Self.placeRow(1): RowState(version: 10, deleted: true, owner: nil)])
        #expect(plan.results.map(\.status) == [applies ? .applied : .rejected])
        #expect(plan.results[0].error?.code == (applies ? nil : "deleted"))
        #expect(plan.writes.count == (applies ? 1 : 0))
    }

    @Test("a record the server no longer has: a change based on a version older than the retention horizon is refused",
          arguments: [(Int64?.none, true), (Int64(0), true), (7, false), (8, true), (9, true)])
    func horizon(base: Int64?, applies: Bool) {
        let plan = Self.plan([SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "Porto"), baseVersion: base)], horizon: 8)
        #expect(plan.results.map(\.status) == [applies ? .applied : .rejected])
        #expect(plan.results[0].error?.code == (applies ? nil : "deleted"))
    }

    @Test("within one push a later mutation sees the earlier ones: put then put applies both, delete then put refuses the put")
    func sameRecordTwice() {
        let puts = Self.plan([
            SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "Porto")),
            SyncMutation(id: 2, collection: "places", op: .put, fields: Records.place(1, name: "Oporto")),
            SyncMutation(id: 3, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(1))]),
        ])
        #expect(puts.results.map(\.status) == [.applied, .applied, .applied])
        #expect(puts.writes.map(\.deleted) == [false, false, true])
        #expect(puts.writes[1].fields["name"] == .string("Oporto"))

        let recreated = Self.plan([
            SyncMutation(id: 1, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(1))]),
            SyncMutation(id: 2, collection: "places", op: .put, fields: Records.place(1, name: "Porto"), baseVersion: 40),
        ], rows: [Self.placeRow(1): RowState(version: 40, deleted: false, owner: nil)])
        #expect(recreated.results.map(\.status) == [.applied, .rejected])
        #expect(recreated.results[1].error?.code == "deleted")
        #expect(recreated.writes.count == 1)
    }

    @Test("a put that lists a photo not uploaded is refused, naming how many are missing and the first; uploaded ones apply")
    func missingObjects() {
        var withPhotos = Records.place(1, name: "Porto")
        withPhotos["photos"] = .array([.string(Self.photoB), .string(Self.photoA)])
        var uploaded = Records.place(2, name: "Braga")
        uploaded["photos"] = .array([.string(Self.photoA)])
        let plan = Self.plan([
            SyncMutation(id: 1, collection: "places", op: .put, fields: withPhotos),
            SyncMutation(id: 2, collection: "places", op: .put, fields: uploaded),
        ], missing: [Self.photoB, String(repeating: "c", count: 64)])
        #expect(plan.results.map(\.status) == [.rejected, .applied])
        #expect(plan.results[0].error?.code == "missing_object")
        #expect(plan.results[0].error?.fields?.first?.message == "1 object(s) not uploaded, the first \(Self.photoB)")
        #expect(plan.writes.first?.fields["photos"] == .array([.string(Self.photoA)]))
    }

    @Test("the records a push touches: each valid mutation's collection and key (several key fields joined with '/'), once each")
    func rowsTouched() {
        let touched = PushPlan.rowsTouched(by: [
            SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "Porto")),
            SyncMutation(id: 2, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(1))]),
            SyncMutation(id: 3, collection: "processing_state", op: .put, fields: Self.state(device: Self.device)),
            SyncMutation(id: 4, collection: "planets", op: .put, fields: ["id": .string(Records.uuid(2))]),
            SyncMutation(id: 5, collection: "places", op: .put, fields: ["name": .string("no key")]),
            SyncMutation(id: 6, collection: "places", op: .put, fields: ["id": .integer(7)]),
        ])
        #expect(touched == [Self.placeRow(1), RowID(collection: "processing_state", key: "\(Self.device)/\(Self.photoA)")])
    }

    @Test("the objects a push references: the photos of its puts, not of its deletes nor other fields")
    func objectsReferenced() {
        var first = Records.place(1, name: "Porto")
        first["photos"] = .array([.string(Self.photoA), .integer(3)])
        var second = Records.place(2, name: "Braga")
        second["photos"] = .array([.string(Self.photoB), .string(Self.photoA)])
        second["notes"] = .string(String(repeating: "d", count: 64))
        let referenced = PushPlan.objectsReferenced(by: [
            SyncMutation(id: 1, collection: "places", op: .put, fields: first),
            SyncMutation(id: 2, collection: "places", op: .put, fields: second),
            SyncMutation(id: 3, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(3)), "photos": .array([.string(String(repeating: "e", count: 64))])]),
            SyncMutation(id: 4, collection: "processing_state", op: .put, fields: Self.state(device: Self.device, hash: String(repeating: "f", count: 64))),
        ])
        #expect(referenced == [Self.photoA, Self.photoB])
    }

    @Test("a push is numbered 1 up to 2^53 - 1, one more each, at most 500 mutations; the first fault is named",
          arguments: [
              ([Int64](), nil), ([1, 2, 3], nil), ([41, 42], nil), ([PushRequest.maxMutationID - 1, PushRequest.maxMutationID], nil),
              ([0, 1], "mutations[0].id"), ([-5], "mutations[0].id"), ([Int64.min], "mutations[0].id"), ([1, 3], "mutations[1].id"),
              ([2, 1], "mutations[1].id"), ([1, 1], "mutations[1].id"), ([PushRequest.maxMutationID, PushRequest.maxMutationID + 1], "mutations[1].id"),
              ([Int64.max], "mutations[0].id"), ([Int64.max - 1, Int64.max], "mutations[0].id"),
          ])
    func numbering(ids: [Int64], field: String?) {
        let problems = PushPlan.checkNumbering(ids.map { SyncMutation(id: $0, collection: "places", op: .delete, fields: [:]) })
        #expect(problems.map(\.field) == (field.map { [$0] } ?? []))
    }

    @Test("500 mutations are one push; 501 are refused as a whole, naming the limit")
    func mutationCount() {
        func mutations(_ count: Int64) -> [SyncMutation] { (1...count).map { SyncMutation(id: $0, collection: "places", op: .delete, fields: [:]) } }
        #expect(PushPlan.checkNumbering(mutations(500)).isEmpty)
        let problems = PushPlan.checkNumbering(mutations(501))
        #expect(problems.map(\.field) == ["mutations"])
        #expect(problems.first?.message.contains("at most \(PushRequest.maxMutations)") == true)
        let gap = PushPlan.checkNumbering([1, 3].map { SyncMutation(id: $0, collection: "places", op: .delete, fields: [:]) })
        #expect(gap.first?.message.hasPrefix("expected 2") == true)
    }
}
