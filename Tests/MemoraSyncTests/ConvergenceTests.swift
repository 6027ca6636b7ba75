import Foundation
import MemoraServer
import MemoraSync
import MemoraSyncTesting
import ServerTestSupport
import Testing
import TestSupport
import MemoraSystem

@Suite("Sync convergence")
struct ConvergenceTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["MEMORA_SYNC_SEED"].flatMap(UInt64.init) ?? 20261125

    @Test("convergence: devices with lost, repeated, delayed and reordered requests, server restarts and crashes end identical", arguments: TestStore.available)
    func convergence(store: TestStore) async throws {
        let seed = Self.seed
        let root = try temporaryFolder("sync-convergence")
        let server = try await TestServer(folder: root + "/server", store: store)
        try await withAsyncCleanup {
            // On PostgreSQL a second server shares the database and the folder (a fleet): the middle device talks to it.
            let second = store == .postgres ? try await TestServer(sharingDataOf: server) : server
            try await withAsyncCleanup {
                let servers = [server, second, server].map(\.server.simulationServer)
                let outcome = try await ConvergenceSimulation(seed: seed, operations: 1200).run(folder: root, servers: servers, joinCode: server.joinCode)
                for problem in outcome.problems { Issue.record("\(problem)") }
                #expect(outcome.places > 0, "seed \(seed): every place ended deleted; the run says little")
                print("convergence on \(store.rawValue)\(store == .postgres ? " (two server processes)" : "") (seed \(seed)): \(outcome.operations) operations, \(outcome.syncs) syncs (\(outcome.failedSyncs) failed), \(outcome.faults) injected network faults, \(outcome.restarts) server restarts, \(outcome.crashes) client crashes, \(outcome.rejected) changes refused (\(outcome.unstorable) holding a NUL); \(outcome.places) places agree")
                #expect(outcome.faults > 20)
                // Changes holding a NUL were refused one by one (the same on both stores), and the rest converged.
                #expect(outcome.unstorable > 0 && outcome.rejected >= outcome.unstorable, "\(outcome.unstorable) unstorable, \(outcome.rejected) refused")
            } cleanup: {
                await second.stop()
            }
        } cleanup: {
            await server.stop()
        }
    }
}
