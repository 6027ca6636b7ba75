/// Runs `body`, then `cleanup`, awaited, whether `body` returned or threw: the `defer` that an
/// asynchronous cleanup (stopping a server, closing a pool) needs, since a `defer` block cannot
/// `await` and a `Task` started in one is not waited for.
///
/// ```swift
/// let server = try await LoopbackSyncServer(folder: folder)
/// try await withAsyncCleanup {
///     try await exercise(server)
/// } cleanup: {
///     await server.stop()
/// }
/// ```
package func withAsyncCleanup<Value, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws(Failure) -> Value,
    cleanup: () async -> Void
) async throws(Failure) -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}
