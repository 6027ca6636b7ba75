internal import Foundation

/// Blocking work awaited without holding a thread of Swift's cooperative pool: a decode, a C
/// library's long call, a wait for a child process.
///
/// The pool has one thread per core, and every task of the process shares them. Work that blocks
/// one of them for seconds stalls every other task meanwhile: on a 2-core hub, one photo's
/// thumbnail held every other device's sync request. Here each piece of work runs on a thread of
/// its own, at most ``limit`` at once; the rest wait their turn in order, as suspended tasks that
/// hold no thread. Work runs to its end once begun: cancelling the task that awaits it does not
/// stop it.
package final class BlockingWork: Sendable {
    /// For work that keeps a core busy (decoding, encoding, probing media): as many pieces at once as
    /// the machine has cores, so that the cooperative pool's threads still get their share.
    package static let computing = BlockingWork(limit: ProcessInfo.processInfo.activeProcessorCount)
    /// For waits that use no core (a child process, a peer on a socket): as many as are asked for,
    /// up to a bound no well-behaved process reaches.
    package static let waiting = BlockingWork(limit: 256)

    /// How many pieces of work run at once, at most.
    package let limit: Int
    /// How many run now, and the turns of those waiting, oldest first.
    private let state = Locked<(running: Int, queued: [CheckedContinuation<Void, Never>])>((0, []))

    /// Work that runs at most `limit` pieces at once (at least one).
    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` on a thread of its own once a place is free, and returns what it returned or
    /// throws what it threw.
    package func run<Value: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        await takePlace()
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(Failure) -> Value in try body() })
            }
        }
        leavePlace()
        return try result.get()
    }

    /// How many pieces of work run now (for tests and diagnostics).
    package var running: Int { state.withLock { $0.running } }

    /// Waits, without a thread, until fewer than ``limit`` pieces run, and counts this one.
    private func takePlace() async {
        let limit = limit
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.running < limit else {
                    state.queued.append(turn)
                    return false
                }
                state.running += 1
                return true
            }
            if now { turn.resume() }
        }
    }

    /// This piece is done: its place passes to the oldest waiting one, or is freed.
    private func leavePlace() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.queued.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.queued.removeFirst()
        }
        next?.resume()
    }
}
