public import Foundation
internal import MemoraSystem

/// An API key. Its description never shows the key, so it cannot leak into logs.
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key itself: send it, never print it.
    public let value: String

    /// Wraps a key; surrounding white space is removed.
    public init(_ value: String) {
        self.value = value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public var description: String { "APIKey(redacted, \(value.count) characters)" }
    public var debugDescription: String { description }
}

/// The secrets Memora knows.
public enum SecretName: String, Sendable, Hashable, CaseIterable, Codable {
    /// Google Gemini's API key.
    case geminiAPIKey = "GEMINI_API_KEY"
    /// OpenAI's (or a compatible server's) API key.
    case openAIAPIKey = "OPENAI_API_KEY"
}

/// Where API keys come from (environment, a 0600 file; the iOS Keychain can conform later).
public protocol SecretStore: Sendable {
    /// The secret, or nil when this store does not have it.
    func secret(_ name: SecretName) throws(MemoraError) -> APIKey?
}

/// Reads keys from environment variables named after ``SecretName``'s raw values.
public struct EnvironmentSecretStore: SecretStore {
    let environment: [String: String]

    /// Reads from `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    public func secret(_ name: SecretName) throws(MemoraError) -> APIKey? {
        guard let value = environment[name.rawValue], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return APIKey(value)
    }
}

/// Reads and writes keys in a `NAME=value` file that must have mode 0600.
public struct FileSecretStore: SecretStore {
    /// The file's path.
    public let path: String

    /// A store at `path` (the file need not exist yet).
    public init(path: String) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/memora/secrets` (or `$HOME/.config/memora/secrets`).
    public static var defaultPath: String {
        ApplicationFolders().configuration + "/secrets"
    }

    public func secret(_ name: SecretName) throws(MemoraError) -> APIKey? {
        try entries()[name.rawValue].map(APIKey.init)
    }

    /// Stores `key` under `name`, creating the file with mode 0600 (atomically replaced).
    public func store(_ key: APIKey, as name: SecretName) throws(MemoraError) {
        var entries = try entries()
        entries[name.rawValue] = key.value
        let text = entries.keys.sorted().map { "\($0)=\(entries[$0]!)\n" }.joined()
        var bytes = Array(text.utf8)
        defer { SecureMemory.wipe(&bytes) }
        do {
            try FileSystem.makeFolder(SystemPath.folder(of: path), permissions: 0o700)
            try AtomicFileWriter.write(bytes, to: path, options: .secret())
        } catch {
            throw .io(path: path, reason: "could not write the secrets file (\(error.reason))", systemCode: error.systemCode,
                      isRetryable: error.isTransient)
        }
    }

    func entries() throws(MemoraError) -> [String: String] {
        // Permissions are checked on the open file, so they cannot change between the check and the read.
        let data: [UInt8]
        do {
            let file = try SystemFile(path)
            let status = try file.status()
            guard status.permissions & 0o077 == 0 else {
                throw MemoraError.insecurePermissions(path: path, mode: String(status.permissions & 0o777, radix: 8))
            }
            data = try file.readAll()
        } catch let error as MemoraError {
            throw error
        } catch let error as SystemError {
            if error.isNotFound && error.operation == "open" { return [:] }
            throw .io(path: path, reason: error.reason, systemCode: error.systemCode, isRetryable: error.isTransient)
        } catch {
            throw .io(path: path, reason: "cannot be read")
        }
        var entries: [String: String] = [:]
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { throw .malformedLine(path: path, line: number + 1) }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            entries[name] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return entries
    }
}

/// Asks several stores in order (for example the environment, then the file).
public struct ChainedSecretStore: SecretStore {
    let stores: [any SecretStore]

    /// Asks `stores` in order.
    public init(_ stores: [any SecretStore]) {
        self.stores = stores
    }

    public func secret(_ name: SecretName) throws(MemoraError) -> APIKey? {
        for store in stores {
            if let key = try store.secret(name) { return key }
        }
        return nil
    }
}
