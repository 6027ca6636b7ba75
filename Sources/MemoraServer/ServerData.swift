internal import Foundation
internal import MemoraSystem

/// A server's folder: `memora-server.sqlite`, `objects/` and `join-code` (0600, made on first use).
public struct ServerData: Sendable {
    /// The SQLite store.
    public let store: SQLiteSyncStore
    /// The uploaded objects.
    public let objects: ObjectStore
    /// The join code devices register with.
    public let joinCode: String

    /// `$XDG_DATA_HOME/memora-server`.
    public static var defaultFolder: String { ApplicationFolders().data + "-server" }

    /// Opens (creating as needed) the server folder at `folder`.
    public static func open(_ folder: String) throws(ServerError) -> ServerData {
        do {
            try FileSystem.makeFolder(folder, permissions: 0o700)
        } catch {
            throw .storage("cannot create \(folder): \(error)")
        }
        let codePath = folder + "/join-code"
        var code = (try? SystemFile(codePath).readAll()).map { String(decoding: $0, as: UTF8.self) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if code.isEmpty {
            code = ServerSecrets.randomToken(bytes: 15)
            do {
                try AtomicFileWriter.write(Array((code + "\n").utf8), to: codePath, options: .secret())
            } catch {
                throw .storage("cannot write \(codePath): \(error)")
            }
        }
        return ServerData(store: try SQLiteSyncStore(path: folder + "/memora-server.sqlite"),
                          objects: try ObjectStore(folder: folder + "/objects"), joinCode: code)
    }
}
