import Foundation
import Testing
@testable import MemoraSystem

struct FileLockTests {
    /// An exclusive lock held elsewhere refuses another without waiting; shared locks coexist.
    @Test func exclusiveExcludes() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/worker-lock"
        let held = try FileLock(path, .exclusive)
        #expect { try FileLock(path, .exclusive, wait: false) } throws: { ($0 as? SystemError)?.code == SystemErrorCode.wouldBlock }
        held.unlock()
        let first = try FileLock(path, .shared, wait: false)
        let second = try FileLock(path, .shared, wait: false)
        #expect(try FileSystem.status(of: path).permissions == 0o600)
        first.unlock()
        second.unlock()
        _ = try FileLock(path, .exclusive, wait: false)
    }
}

struct ApplicationFoldersTests {
    /// XDG variables win; unset, `$HOME` is used (not the password database's home); a relative XDG value is ignored.
    @Test func xdgThenHome() {
        let xdg = ApplicationFolders(environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "relative"])
        #if !canImport(Darwin)
        #expect(xdg.data == "/data/memora")
        #expect(xdg.configuration == "/home/ana/.config/memora")
        #expect(xdg.state == "/home/ana/.local/state/memora")
        #expect(xdg.cache == "/home/ana/.cache/memora")
        #endif
        let homeOnly = ApplicationFolders(environment: ["HOME": "/srv/someone/"])
        #expect(homeOnly.data.hasPrefix("/srv/someone/"))
    }
}

struct FolderWalkerTests {
    /// Regular files in byte order; hidden entries and symbolic links skipped; an unreadable root is an error.
    @Test func walksSortedWithoutHiddenOrLinks() throws {
        let folder = try TemporaryFolder()
        for name in ["b.jpg", "a/z.png", "a/.hidden.jpg", ".cache/x.jpg", "a/b/c.heic"] {
            try FileSystem.makeFolder(SystemPath.folder(of: folder.path + "/" + name))
            try AtomicFileWriter.write([1], to: folder.path + "/" + name)
        }
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/a")
        let found = try FolderWalker(root: folder.path + "/").files().map { String($0.path.dropFirst(folder.path.count + 1)) }
        #expect(found == ["a/b/c.heic", "a/z.png", "b.jpg"])
        #expect(throws: SystemError.self) { try FolderWalker(root: folder.path + "/missing").files() }
    }
}

struct FileFormatTests {
    private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
    }

    @Test func recognisesEveryContainer() {
        #expect(FileFormat.detect([0xFF, 0xD8, 0xFF, 0xE1]) == .jpeg)
        #expect(FileFormat.detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(FileFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(FileFormat.detect([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(FileFormat.detect([0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0]) == .bigTIFF)
        #expect(FileFormat.detect(Array("GIF89a".utf8)) == .gif)
        #expect(FileFormat.detect(ftyp("heic", ["mif1", "heic"])) == .heic)
        #expect(FileFormat.detect(ftyp("avif", ["mif1", "miaf"])) == .avif)
        // The codec brand only among the compatible brands (the major brand is mif1): still found.
        #expect(FileFormat.detect(ftyp("mif1", ["miaf", "MiHB", "heic"])) == .heic)
        #expect(FileFormat.detect(ftyp("mif1", ["avif"])) == .avif)
        #expect(FileFormat.detect(ftyp("mif1", ["miaf"])) == .heif)
        #expect(FileFormat.detect(ftyp("isom", ["mp41", "iso2"])) == nil)
        #expect(FileFormat.detect(Array("hello".utf8)) == nil)
        #expect(FileFormat.detect([UInt8]()) == nil)
    }
}
