import Foundation
import GRDB
import MemoraServer
import MemoraSync
import ServerTestSupport
import Testing
import TestSupport
import MemoraSystem

/// The protocol's properties (issue 19, 2–7) against a real server on loopback and its SQLite store.
@Suite("Sync protocol properties")
struct ProtocolPropertyTests {
    private func put(_ id: Int64, _ n: Int, _ name: String, base: Int64? = nil) -> SyncMutation {
        SyncMutation(id: id, collection: "places", op: .put, fields: Records.place(n, name: name), baseVersion: base)
    }

    @Test("idempotent push: replaying a push any number of times gives the same state and the same answer", arguments: TestStore.available)
    func idempotentPush(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-idempotent"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-idempotent-1", joinCode: server.joinCode)
            var bad = Records.place(3, name: "x")
            bad["latitude"] = .number(95)
            let mutations = [put(1, 1, "one"), put(2, 2, "two"), SyncMutation(id: 3, collection: "places", op: .put, fields: bad),
                             SyncMutation(id: 4, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(2))])]
            let first = try await client.push(token, mutations)
            #expect(first.status == 200)
            let answer = try JSONDecoder().decode(PushResponse.self, from: first.body)
            #expect(answer.lastMutationId == 4)
            #expect(answer.results.map(\.status) == [.applied, .applied, .rejected, .applied])
            #expect(answer.results[2].error?.fields?.first?.field == "mutations[2].fields.latitude")
            let state = try await client.pull(token, cursor: nil)
            for _ in 0..<5 {
                let again = try await client.push(token, mutations)
                #expect(try JSONDecoder().decode(PushResponse.self, from: again.body) == answer)
                // A replay of a suffix and of a prefix answers the same for those mutations.
                let suffix = try await client.push(token, Array(mutations[2...]))
                #expect(try JSONDecoder().decode(PushResponse.self, from: suffix.body).results == Array(answer.results[2...]))
            }
            let after = try await client.pull(token, cursor: nil)
            #expect(after.changes == state.changes)
            #expect(after.cursor == state.cursor)
            // A gap is refused, nothing applied.
            let gap = try await client.push(token, [put(6, 9, "gap")])
            #expect(gap.status == 409)
            #expect(RawClient.error(gap)?.code == "mutation_gap")
            #expect(try await client.pull(token, cursor: nil).changes == state.changes)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("pull completeness: pages never split a version, however many records it has, and deliver everything once", arguments: TestStore.available)
    func pagingNeverSplitsAVersion(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-paging"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let a = try await client.register("device-paging-aaaa", joinCode: server.joinCode)
            let b = try await client.register("device-paging-bbbb", joinCode: server.joinCode)
            // One push of 300 records is one version; then 40 single pushes; then 120 in one.
            _ = try await client.push(a, (1...300).map { put(Int64($0), $0, "p\($0)") })
            for n in 301...340 { _ = try await client.push(a, [put(Int64(n), n, "p\(n)")]) }
            _ = try await client.push(a, (341...460).map { put(Int64($0), $0, "p\($0)") })
            var cursor: String?
            var seen: [String: Int64] = [:]
            var pages: [[Int64]] = []
            var lastVersion: Int64 = 0
            while true {
                let page = try await client.pull(b, cursor: cursor, limit: 50)
                for change in page.changes {
                    #expect(seen[change.key] == nil, "delivered twice")
                    #expect(change.version >= lastVersion, "out of order")
                    seen[change.key] = change.version
                    lastVersion = change.version
                }
                pages.append(page.changes.map(\.version))
                cursor = page.cursor
                if !page.hasMore { break }
            }
            #expect(seen.count == 460)
            // No version appears in two pages.
            var pageOf: [Int64: Int] = [:]
            for (index, versions) in pages.enumerated() {
                for version in Set(versions) {
                    #expect(pageOf[version] == nil, "version \(version) split across pages")
                    pageOf[version] = index
                }
            }
            #expect(pages.first?.count == 300)  // the big version, whole, although the limit is 50
            // Nothing more, and the cursor does not move backwards.
            let empty = try await client.pull(b, cursor: cursor)
            #expect(empty.changes.isEmpty && !empty.hasMore && empty.cursor == cursor)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("pull completeness with a writer transaction held open across pulls", arguments: TestStore.available)
    func heldOpenWriter(store: TestStore) async throws {
        let folder = try temporaryFolder("sync-held")
        let server = try await TestServer(folder: folder, store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let a = try await client.register("device-held-aaaaaa", joinCode: server.joinCode)
            let b = try await client.register("device-held-bbbbbb", joinCode: server.joinCode)
            _ = try await client.push(a, [put(1, 1, "first")])
            let first = try await client.pull(b, cursor: nil)
            // Another connection holds a write transaction open; a push waits behind it while device B
            // pulls; then both commit, and the next pull delivers the push.
            let during = try await server.whileWriterHeldOpen { @Sendable in
                let push = Task { try await client.push(a, [SyncMutation(id: 2, collection: "places", op: .put, fields: Records.place(2, name: "second"))]) }
                try await Task.sleep(for: .milliseconds(300))
                let page = try await client.pull(b, cursor: first.cursor)
                return (page, push)
            }
            let pushed = try await during.1.value
            #expect(pushed.status == 200)
            let after = try await client.pull(b, cursor: during.0.cursor)
            #expect(during.0.changes.isEmpty)
            #expect((during.0.changes + after.changes).map(\.key) == [Records.uuid(2)])
        } cleanup: {
            await server.stop()
        }
    }

    @Test("no resurrection: a put based on a version older than a tombstone is refused; old cursors get a reset", arguments: TestStore.available)
    func noResurrection(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-tombstones"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let a = try await client.register("device-tomb-aaaaaa", joinCode: server.joinCode)
            let b = try await client.register("device-tomb-bbbbbb", joinCode: server.joinCode)
            _ = try await client.push(a, [put(1, 1, "kitchen")])
            let seen = try await client.pull(b, cursor: nil)
            let version = try #require(seen.changes.first?.version)
            _ = try await client.push(b, [SyncMutation(id: 1, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(1))], baseVersion: version)])
            // A's edit was based on the version before the delete: refused.
            let stale = try JSONDecoder().decode(PushResponse.self, from: try await client.push(a, [put(2, 1, "kitchen (edited)", base: version)]).body)
            #expect(stale.results.first?.error?.code == "deleted")
            let afterDelete = try await client.pull(b, cursor: seen.cursor)
            #expect(afterDelete.changes.count == 1 && afterDelete.changes[0].deleted)
            // A device that saw the delete may create the record again on purpose.
            let again = try JSONDecoder().decode(PushResponse.self, from: try await client.push(b, [put(2, 1, "kitchen", base: afterDelete.changes[0].version)]).body)
            #expect(again.results.first?.status == .applied)
            // Tombstones past retention go; a cursor older than the horizon gets an explicit reset.
            _ = try await client.push(b, [SyncMutation(id: 3, collection: "places", op: .delete, fields: ["id": .string(Records.uuid(1))])])
            let removed = try await server.store().purgeTombstones(before: Int64(Date().timeIntervalSince1970 * 1000) + 1000)
            #expect(removed == 1)
            let reset = try await client.pull(b, cursor: seen.cursor)
            #expect(reset.reset)
            #expect(reset.changes.isEmpty)
            let fresh = try await client.pull(b, cursor: reset.cursor)
            #expect(!fresh.reset)
            #expect(fresh.changes.isEmpty)  // the record is gone, and a device starting over needs no tombstones
            // A cursor from another server's database also resets.
            #expect(try await client.pull(b, cursor: "v1.someoneelse.3").reset)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("atomic push: a push that fails at any statement applies none of its mutations", arguments: TestStore.available)
    func atomicPush(store: TestStore) async throws {
        let folder = try temporaryFolder("sync-atomic")
        let server = try await TestServer(folder: folder, store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let a = try await client.register("device-atomic-aaaa", joinCode: server.joinCode)
            // A trigger makes the store fail when it writes the place named "boom", wherever it is in the push.
            if store == .sqlite {
                try await server.execute("CREATE TRIGGER fail_boom BEFORE INSERT ON places WHEN NEW.name = 'boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
            } else {
                try await server.execute("CREATE FUNCTION fail_boom() RETURNS trigger AS $$ BEGIN IF NEW.name = 'boom' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql")
                try await server.execute("CREATE TRIGGER fail_boom BEFORE INSERT ON places FOR EACH ROW EXECUTE FUNCTION fail_boom()")
            }
            for position in 0..<4 {
                var mutations = (1...4).map { put(Int64($0), $0, "ok\($0)") }
                mutations[position] = put(Int64(position + 1), 90 + position, "boom")
                let response = try await client.push(a, mutations)
                #expect(response.status == 503)
                #expect(try await client.pull(a, cursor: nil).changes.isEmpty)
                #expect(try await client.pull(a, cursor: nil).lastMutationId == 0)
            }
            try await server.execute(store == .sqlite ? "DROP TRIGGER fail_boom" : "DROP TRIGGER fail_boom ON places")
            let retried = try JSONDecoder().decode(PushResponse.self, from: try await client.push(a, (1...4).map { put(Int64($0), $0, "ok\($0)") }).body)
            #expect(retried.lastMutationId == 4)
            #expect(try await client.pull(a, cursor: nil).changes.count == 4)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("clock independence: device clocks days apart change nothing; the server's order decides", arguments: TestStore.available)
    func clockIndependence(store: TestStore) async throws {
        let server = try await TestServer(folder: try temporaryFolder("sync-clocks"), store: store)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let ahead = try await client.register("device-clock-ahead", joinCode: server.joinCode)
            let behind = try await client.register("device-clock-behind", joinCode: server.joinCode)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let day: Int64 = 24 * 3600 * 1000
            _ = try await client.push(ahead, [SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "from the future", updatedAt: now + 5 * day))])
            let seen = try await client.pull(behind, cursor: nil)
            _ = try await client.push(behind, [SyncMutation(id: 1, collection: "places", op: .put, fields: Records.place(1, name: "from the past", updatedAt: now - 5 * day),
                                                            baseVersion: seen.changes[0].version)])
            let page = try await client.pull(ahead, cursor: nil)
            #expect(page.changes.first?.fields["name"] == .string("from the past"))
        } cleanup: {
            await server.stop()
        }
    }
}
