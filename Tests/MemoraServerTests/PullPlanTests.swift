@testable import MemoraServer
import MemoraSync
import Testing

/// Where a pull's page ends (Docs/Sync.md, "Pull"): after `limit` records and the rest of that
/// record's version; and which cursors the server serves.
@Suite("PullPlan")
struct PullPlanTests {
    @Test("when every change after the cursor fits, the page ends at the store's latest version and nothing follows")
    func everythingFits() {
        let plan = PullPlan(after: 2, limit: 10, versions: [[3, 5], [4]], newestPulled: 5, latest: 7)
        #expect(plan.after == 2 && plan.through == 7 && !plan.hasMore)
    }

    @Test("a page holds `limit` records, in version order across collections, and says more follow")
    func limited() {
        let plan = PullPlan(after: 0, limit: 3, versions: [[6, 9], [1, 8], [4, 12]], newestPulled: 12, latest: 12)
        #expect(plan.through == 6 && plan.hasMore)
    }

    @Test("a page never splits a version: the last record's version is taken whole, past `limit`")
    func wholeVersion() {
        // Five records of version 5 (one push) after a record of version 2; limit 2 ends inside version 5.
        let plan = PullPlan(after: 1, limit: 2, versions: [[2, 5, 5], [5, 5, 5]], newestPulled: 9, latest: 9)
        #expect(plan.through == 5, "the page holds all of version 5, not 4 and not a part")
        #expect(plan.hasMore)
    }

    @Test("a page that reaches the newest pulled record has nothing more, and its cursor moves to the latest version")
    func reachesNewest() {
        // More records than `limit`, but all of one version, the newest pulled one; error reports (never
        // pulled) took the store to version 11 since.
        let plan = PullPlan(after: 3, limit: 2, versions: [[8, 8, 8]], newestPulled: 8, latest: 11)
        #expect(plan.through == 11 && !plan.hasMore)
    }

    @Test("nothing after the cursor: the page is empty and the cursor moves to the latest version")
    func nothingNew() {
        let empty = PullPlan(after: 12, limit: 50, versions: [[], [], []], newestPulled: 10, latest: 14)
        #expect(empty.after == 12 && empty.through == 14 && !empty.hasMore)
        let fresh = PullPlan(after: 0, limit: 50, versions: [], newestPulled: 0, latest: 0)
        #expect(fresh.through == 0 && !fresh.hasMore)
    }

    @Test("exactly `limit` records is a whole page with nothing more")
    func exactlyLimit() {
        let plan = PullPlan(after: 0, limit: 3, versions: [[1, 2], [3]], newestPulled: 3, latest: 3)
        #expect(plan.through == 3 && !plan.hasMore)
    }

    @Test("tombstones are sent to a device that has pulled before, not to one that starts from nothing")
    func tombstones() {
        #expect(!PullPlan(after: 0, limit: 10, versions: [[1]], newestPulled: 1, latest: 1).includesTombstones)
        #expect(PullPlan(after: 1, limit: 10, versions: [[2]], newestPulled: 2, latest: 2).includesTombstones)
    }

    @Test("no cursor is a pull from the start; the server's cursor is read; other text is a 400 naming the cursor")
    func cursor() throws {
        #expect(try PullPlan.cursor(nil) == nil)
        #expect(try PullPlan.cursor("v1.Zk3_q-8aPwXs0LmN.40") == SyncCursor(epoch: "Zk3_q-8aPwXs0LmN", version: 40))
        for text in ["", "40", "v1.Zk3_q-8aPwXs0LmN.-1", "v9.Zk3_q-8aPwXs0LmN.40"] {
            let error = #expect(throws: ServerError.self, "\(text.debugDescription)") { try PullPlan.cursor(text) }
            #expect(error?.code == .invalidRequest && error?.status == 400)
            #expect(error?.fields.map(\.field) == ["cursor"])
        }
    }

    @Test("a cursor is served when it is this database's, not in the future and not older than the horizon",
          arguments: [
              // (epoch, version, reset): this database's epoch is "here", its horizon 20, its latest version 50.
              ("here", Int64(0), false), ("here", 20, false), ("here", 21, false), ("here", 50, false),
              ("here", 19, true), ("here", 1, true), ("here", 51, true), ("there", 30, true), ("there", 0, true),
          ])
    func needsReset(epoch: String, version: Int64, reset: Bool) {
        #expect(PullPlan.needsReset(SyncCursor(epoch: epoch, version: version), epoch: "here", horizon: 20, latest: 50) == reset)
    }
}
