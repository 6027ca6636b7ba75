import Foundation
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import TestSupport

/// `SyncClient` against a real server on loopback, with time moved by hand: both read one
/// ``ManualClock``, so a token's last week comes without waiting 83 days.
@Suite("Sync client")
struct SyncClientTests {
    @Test("a token within a week of its expiry is refreshed on the next sync, and not before")
    func refreshNearExpiry() async throws {
        let clock = ManualClock(start: Date())
        let folder = try temporaryFolder("sync-client-clock")
        let server = try await TestServer(folder: folder + "/server", clock: clock)
        try await withAsyncCleanup {
            let credentials = SyncCredentialFile(path: folder + "/credentials.json")
            let client = SyncClient(replica: try SyncReplica(path: folder + "/replica.sqlite"), credentials: credentials, clock: clock)
            let first = try await client.sync(server: server.url, joinCode: server.joinCode)
            #expect(first.registered)
            let registered = try #require(try credentials.load())
            #expect(registered.expiresAt == clock.milliseconds() + 90 * 86_400_000)
            // 80 days on: ten left, no refresh.
            clock.advance(by: .seconds(80 * 86_400))
            _ = try await client.sync(server: server.url)
            #expect(try credentials.load()?.token == registered.token)
            // 84 days on: six left, the sync refreshes it for 90 days from now.
            clock.advance(by: .seconds(4 * 86_400))
            _ = try await client.sync(server: server.url)
            let refreshed = try #require(try credentials.load())
            #expect(refreshed.token != registered.token)
            #expect(refreshed.expiresAt == clock.milliseconds() + 90 * 86_400_000)
            // The refreshed token is the one that works from now on.
            clock.advance(by: .seconds(30 * 86_400))
            let later = try await client.sync(server: server.url)
            #expect(!later.registered)
        } cleanup: {
            await server.stop()
        }
    }
}
