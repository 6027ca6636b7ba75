#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program as a child process and reports how it ended and its peak memory, for
/// measurements (`memora-bench`) and end-to-end tests. Standard output and error go to
/// `/dev/null` unless `keepOutput`.
package enum ChildProcess {
    /// How a child ended.
    package struct Outcome: Sendable, Hashable {
        /// The exit status, or 128 + the signal that ended it.
        package var status: Int32
        /// The peak resident memory, in bytes (`ru_maxrss` from `wait4`). On Linux it is at least this
        /// process's own resident memory when it spawned the child (the kernel keeps the larger of
        /// the child's and the memory it had before its `exec`, which `posix_spawn` shares with us):
        /// measure from a small process, or read the child's `VmHWM` while it runs.
        package var peakResidentBytes: Int64
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) and waits for it.
    /// Standard input is read from `inputPath` (`/dev/null` when nil: a child never reads ours).
    /// Standard output and error go to `outputPath` and `errorPath` when given, else to `/dev/null`
    /// (or this process's own with `keepOutput`).
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            keepOutput: Bool = false, inputPath: String? = nil, outputPath: String? = nil,
                            errorPath: String? = nil) throws(SystemError) -> Outcome {
        var merged = ProcessEnvironment.variables
        for (key, value) in environment { merged[key] = value }
        // Each argument as the bytes it stands for (``SystemPath``): a file name that is not UTF-8 reaches the child intact.
        let argv = ([executable] + arguments).map { argument in SystemPath.withCString(argument) { strdup($0) } } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        for (descriptor, target) in [(Int32(1), outputPath), (Int32(2), errorPath)] {
            if let target {
                posix_spawn_file_actions_addopen(&actions, descriptor, target, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            } else if !keepOutput {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SystemError("start", path: executable, code: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw .last("wait for", path: executable) }
        }
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        #if canImport(Darwin)
        let peak = Int64(usage.ru_maxrss)  // bytes on Darwin
        #else
        let peak = Int64(usage.ru_maxrss) * 1024  // KiB on Linux
        #endif
        return Outcome(status: code, peakResidentBytes: peak)
    }
}
