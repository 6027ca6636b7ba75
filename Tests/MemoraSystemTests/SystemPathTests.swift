import Testing
@testable import MemoraSystem

/// Paths that are not UTF-8 (a Latin-1 name on Linux) open, list, rename and delete.
struct SystemPathTests {
    /// The bytes of a Latin-1 `café.jpg` (é is E9, not valid UTF-8 alone) survive a round trip through String.
    @Test func latin1NameRoundTrips() {
        let raw: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let text = SystemPath.string(fromBytes: raw)
        #expect(SystemPath.bytes(text) == raw)
        #expect(SystemPath.displayName(text) == "caf\u{FFFD}.jpg")
        // Valid UTF-8 is unchanged.
        #expect(SystemPath.string(fromBytes: Array("café.jpg".utf8)) == "café.jpg")
        #expect(SystemPath.bytes("café.jpg") == Array("café.jpg".utf8))
    }

    /// A file with a Latin-1 name is found by the walker and then read, written atomically and removed by that name.
    @Test func latin1FileWorksEverywhere() throws {
        let folder = try TemporaryFolder()
        let name = SystemPath.string(fromBytes: Array("Ferien ".utf8) + [0xE9, 0xE8] + Array(".jpg".utf8))
        let path = folder.path + "/" + name
        try AtomicFileWriter.write([1, 2, 3], to: path)
        let found = try FolderWalker(root: folder.path).files()
        #expect(found.map(\.path) == [path])
        #expect(try SystemFile(found[0].path).readAll() == [1, 2, 3])
        try AtomicFileWriter.write([4, 5], to: found[0].path)
        #expect(try SystemFile(path).readAll() == [4, 5])
        try FileSystem.remove(path)
        #expect(!FileSystem.exists(path))
    }

    @Test func containmentIsLexical() {
        #expect(SystemPath.isContained("Photos/a.loca", in: "/vault"))
        #expect(!SystemPath.isContained("../precious.txt", in: "/vault"))
        #expect(!SystemPath.isContained("Photos/../../x", in: "/vault"))
        #expect(!SystemPath.isContained("/vaultx/a", in: "/vault"))
        #expect(SystemPath.normalized("/a/./b//c/../d") == "/a/b/d")
        #expect(SystemPath.folder(of: "a.jpg") == "." && SystemPath.folder(of: "/a.jpg") == "/" && SystemPath.folder(of: "x/y/a.jpg") == "x/y")
    }

    /// Errors keep errno and say what happened in words.
    @Test func errorsKeepTheCode() {
        #expect(throws: SystemError.self) { try SystemFile("/nonexistent/memora/file") }
        do {
            _ = try SystemFile("/nonexistent/memora/file")
        } catch {
            #expect(error.isNotFound)
            #expect(error.reason == "no such file")
            #expect(error.description == "/nonexistent/memora/file: cannot open (no such file)")
        }
        do {
            _ = try SystemFile("/")
        } catch {
            #expect(error.reason == "it is a directory")
        }
    }
}
