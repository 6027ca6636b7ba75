import Foundation
import MemoraHTTP
import MemoraServer
import MemoraSync
import MemoraSystem
import ServerTestSupport
import Testing
import TestSupport

/// The server reads the time on its configured clock (``ServerConfiguration/clock``): lifetimes are
/// tested by moving a ``ManualClock``, not by waiting 90 days.
@Suite("Server clock")
struct ServerClockTests {
    @Test("token lifetimes run on the configured clock: a refreshed token lasts 90 days from its now, and is refused after", arguments: TestStore.available)
    func tokenLifetime(store: TestStore) async throws {
        let clock = ManualClock(start: Date())
        let server = try await TestServer(folder: try temporaryFolder("server-clock"), store: store, clock: clock)
        try await withAsyncCleanup {
            let client = RawClient(base: server.url)
            let token = try await client.register("device-clock-0000001", joinCode: server.joinCode)
            #expect(try await client.pull(token, cursor: nil).changes.isEmpty)
            // 89 days on, the token still works, and a refreshed one lasts 90 days from the clock's now.
            clock.advance(by: .seconds(89 * 86_400))
            #expect(try await client.send("POST", "api/sync/pull", token: token, json: "{}").status == 200)
            let refreshed = try await client.send("POST", "api/devices/refresh", token: token, json: "{}")
            #expect(refreshed.status == 200)
            let renewed = try JSONDecoder().decode(DeviceToken.self, from: refreshed.body)
            #expect(renewed.expiresAt == clock.milliseconds() + 90 * 86_400_000)
            // 91 days after registering (the lifetime is 90), the first token would be refused; the
            // refreshed one works until 90 days after the refresh.
            clock.advance(by: .seconds(2 * 86_400))
            #expect(try await client.send("POST", "api/sync/pull", token: renewed.token, json: "{}").status == 200)
            clock.advance(by: .seconds(89 * 86_400))
            let expired = try await client.send("POST", "api/sync/pull", token: renewed.token, json: "{}")
            #expect(expired.status == 401)
            #expect(RawClient.error(expired)?.code == "unauthorized")
        } cleanup: {
            await server.stop()
        }
    }
}
