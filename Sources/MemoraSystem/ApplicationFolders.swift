import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where Memora keeps its files when the user does not say: the XDG base directories on Linux
/// (`$XDG_CONFIG_HOME`, `$XDG_DATA_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME`, each falling back
/// to its folder under `$HOME`, and `$HOME` to the account's home folder), and
/// `~/Library/Application Support` and `~/Library/Caches` on Apple platforms. Every folder ends in `memora`.
package struct ApplicationFolders: Sendable {
    /// Settings and secrets (`$XDG_CONFIG_HOME/memora`).
    package var configuration: String
    /// Databases (`$XDG_DATA_HOME/memora`).
    package var data: String
    /// History and snapshots (`$XDG_STATE_HOME/memora`).
    package var state: String
    /// Files that can be rebuilt (`$XDG_CACHE_HOME/memora`).
    package var cache: String

    /// The folders for `environment` (the process's by default).
    package init(environment: [String: String] = ProcessEnvironment.variables) {
        let home = Self.home(environment)
        #if canImport(Darwin)
        let support = home + "/Library/Application Support/memora"
        configuration = support
        data = support
        state = support
        cache = home + "/Library/Caches/memora"
        #else
        func folder(_ variable: String, _ fallback: String) -> String {
            // The XDG specification: a relative value is invalid and ignored.
            if let value = environment[variable], value.hasPrefix("/") { return SystemPath.join(value, "memora") }
            return home + "/" + fallback + "/memora"
        }
        configuration = folder("XDG_CONFIG_HOME", ".config")
        data = folder("XDG_DATA_HOME", ".local/share")
        state = folder("XDG_STATE_HOME", ".local/state")
        cache = folder("XDG_CACHE_HOME", ".cache")
        #endif
    }

    /// `$HOME` when set, else the account's home folder from the password database, else `/tmp`.
    static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            return String(cString: directory)
        }
        return "/tmp"
    }
}

/// The process's environment and identity.
package enum ProcessEnvironment {
    /// The environment variables.
    package static var variables: [String: String] { ProcessInfo.processInfo.environment }

    /// The user the process runs as.
    package static var userID: UInt32 { UInt32(getuid()) }

    /// The command line's arguments (without the program), decoded losslessly as ``SystemPath``
    /// decodes file names: an argument that is not valid UTF-8 (a Latin-1 file name, `caf\xE9.jpg`)
    /// keeps its bytes, so the file it names can be opened. `CommandLine.arguments` would have turned
    /// them into U+FFFD.
    package static var arguments: [String] {
        (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { pointer in
                SystemPath.string(fromBytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
            }
        }
    }

    /// This process's id.
    package static var processID: Int32 { getpid() }

    /// Whether standard error is a terminal (a progress bar may redraw itself).
    package static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard input is a terminal (a person can answer a question).
    package static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// A line typed at the terminal without echoing it (a passphrase), after `prompt` on standard
    /// error; nil at the end of input. The terminal's settings are restored before it returns.
    package static func readSecretLine(prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &quiet)  // not TCSAFLUSH: what was typed ahead is kept
        }
        defer {
            if hasTerminal { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}

extension ApplicationFolders {
    /// Runs `make` (which makes a `URLSessionConfiguration`) and removes the empty folder that
    /// swift-corelibs-foundation creates for its shared cookie store, `$XDG_DATA_HOME/<the name of the
    /// executable's folder>` (`release` for `.build/release/memora`), when it was not there before:
    /// Memora never keeps cookies, and a folder it did not ask for is litter in the user's data.
    package static func withoutCookieFolder<T>(_ make: () -> T) -> T {
        #if os(Linux)
        let data = SystemPath.folder(of: ApplicationFolders().data)
        let name = SystemPath.fileName(of: Bundle.main.bundlePath)
        let stray = data + "/" + name
        let existed = name.isEmpty || FileSystem.exists(stray)
        let made = make()
        if !existed, (try? FileSystem.entries(of: stray))?.isEmpty == true { try? FileSystem.removeFolder(stray) }
        return made
        #else
        return make()
        #endif
    }
}
