import Foundation
import ImageKit
import MemoraSystem
import VaultCrypto

/// Scenario 13: memory that does not grow with the file. Each command runs as a child process of
/// the built `memora` on a 1 MB photo and on the same photo grown to 1 GiB (a trailer after the
/// JPEG's end, as an MPF image or a maker's trailer is), and on a 1 MB and a 1 GB TIFF; peak RSS
/// comes from `wait4`. The target: the large file within 64 MiB of the small one.
enum MemoryBench {
    struct Row {
        var command: String
        var small: Int64
        var large: Int64
        var smallSize: Int64
        var largeSize: Int64
    }

    static func run(largeMegabytes: Int = 1024) throws {
        let memora = SystemPath.join(SystemPath.folder(of: FileSystem.absolutePath(CommandLine.arguments[0])), "memora")
        guard FileSystem.exists(memora) else { throw BenchError("\(memora) is missing: build it first (swift build -c release --product memora)") }
        let folder = NSTemporaryDirectory() + "memora-bench-memory-\(ProcessEnvironment.processID)"
        try FileSystem.makeFolder(folder)
        defer { try? FileSystem.removeTree(folder) }
        print("\nScenario 13: peak memory (RSS from wait4) of memora commands on a small and a large file; target: large within 64 MiB of small")

        let photo = try ImageEncoder.encode(try SyntheticPhoto.landscape(width: 1600, height: 1200, seed: 8), as: .jpeg(JPEGEncodingOptions(quality: 0.97)))
        let largeSize = Int64(largeMegabytes) << 20
        func makeJPEG(_ name: String, size: Int64) throws -> String {
            let path = folder + "/" + name
            let writer = try AtomicFileWriter(path: path)
            try writer.write(photo)
            let zeros = [UInt8](repeating: 0, count: 8 << 20)
            var written = Int64(photo.count)
            while written < size {
                let count = Int(min(Int64(zeros.count), size - written))
                try writer.write(Array(zeros[0..<count]))
                written += Int64(count)
            }
            try writer.commit()
            return path
        }
        func makeTIFF(_ name: String, size: Int64) throws -> String {
            let side = Int(Double(size).squareRoot())
            let path = folder + "/" + name
            let writer = try AtomicFileWriter(path: path)
            try writer.write(TIFFBuilder.grayHeader(width: side, height: side))
            let row = (0..<side).map { UInt8(truncatingIfNeeded: $0) }
            var chunk: [UInt8] = []
            for _ in 0..<side {
                chunk += row
                if chunk.count >= 8 << 20 { try writer.write(chunk); chunk.removeAll(keepingCapacity: true) }
            }
            try writer.write(chunk)
            try writer.commit()
            return path
        }

        let environment = ["XDG_STATE_HOME": folder + "/state", "XDG_CONFIG_HOME": folder + "/config", "XDG_DATA_HOME": folder + "/data"]
        func peak(_ arguments: [String]) throws -> Int64 {
            let outcome = try ChildProcess.run(memora, arguments, environment: environment)
            guard outcome.status == 0 else { throw BenchError("memora \(arguments.joined(separator: " ")) exited with \(outcome.status)") }
            return outcome.peakResidentBytes
        }
        var rows: [Row] = []
        func measure(_ command: String, small: String, large: String, _ arguments: (String, String) throws -> [String]) throws {
            let smallSize = try FileSystem.status(of: small).size, bigSize = try FileSystem.status(of: large).size
            rows.append(Row(command: command, small: try peak(try arguments(small, "small")), large: try peak(try arguments(large, "large")),
                            smallSize: smallSize, largeSize: bigSize))
        }

        let smallJPEG = try makeJPEG("small.jpg", size: Int64(photo.count))
        let largeJPEG = try makeJPEG("large.jpg", size: largeSize)
        try measure("image info", small: smallJPEG, large: largeJPEG) { path, _ in ["image", "info", path] }
        try measure("index build", small: smallJPEG, large: largeJPEG) { path, tag in
            let library = folder + "/library-" + tag
            try FileSystem.makeFolder(library)
            try FileSystem.link(path, to: library + "/photo.jpg")
            return ["index", "build", "--db", folder + "/index-\(tag).sqlite", library]
        }
        _ = try peak(["vault", "init", "--vault", folder + "/vault", "--key-file", folder + "/vault.key"])
        try measure("vault add", small: smallJPEG, large: largeJPEG) { path, _ in
            ["vault", "add", "--vault", folder + "/vault", "--key-file", folder + "/vault.key", path]
        }
        let vault = try Vault.open(at: folder + "/vault", keyStore: FileKeyStore(path: folder + "/vault.key"))
        let ids = Dictionary(uniqueKeysWithValues: try vault.photos().map { ($0.originalSize, $0.id) })
        try measure("vault export", small: smallJPEG, large: largeJPEG) { path, tag in
            let size = try FileSystem.status(of: path).size
            return ["vault", "export", "--vault", folder + "/vault", "--key-file", folder + "/vault.key", ids[size] ?? "?",
                    "--output", folder + "/export-" + tag]
        }
        try measure("metadata write (JPEG)", small: smallJPEG, large: largeJPEG) { path, _ in ["metadata", "write", "--caption", "A test", path] }
        let smallTIFF = try makeTIFF("small.tif", size: 1 << 20)
        let largeTIFF = try makeTIFF("large.tif", size: 1 << 30)
        try measure("metadata write (TIFF)", small: smallTIFF, large: largeTIFF) { path, _ in ["metadata", "write", "--caption", "A test", path] }

        func mib(_ bytes: Int64) -> String { String(format: "%.0f MiB", Double(bytes) / 1_048_576) }
        print("  command                  small file        peak      large file        peak      growth   within 64 MiB")
        for row in rows {
            let growth = row.large - row.small
            print("  " + row.command.padding(toLength: 24, withPad: " ", startingAt: 0)
                  + " " + mib(row.smallSize).leftPadded(9) + " " + mib(row.small).leftPadded(10)
                  + "   " + mib(row.largeSize).leftPadded(9) + " " + mib(row.large).leftPadded(10)
                  + "   " + mib(growth).leftPadded(8) + "   " + (growth <= 64 << 20 ? "yes" : "NO"))
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

/// A minimal uncompressed 8-bit grey TIFF: header, IFD0 and one strip that follows it.
enum TIFFBuilder {
    static func grayHeader(width: Int, height: Int) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
            (273, 4, 0), (277, 3, 1), (278, 4, height), (279, 4, width * height),
        ]
        let ifdSize = 2 + entries.count * 12 + 4
        let dataOffset = 8 + ifdSize
        var bytes: [UInt8] = Array("II".utf8) + le16(42) + le32(8) + le16(entries.count)
        for entry in entries {
            let value = entry.tag == 273 ? dataOffset : entry.value
            bytes += le16(entry.tag) + le16(entry.type) + le32(1) + (entry.type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        return bytes + le32(0)
    }
}
