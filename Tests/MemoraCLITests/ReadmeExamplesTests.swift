import Foundation
import ImageKit
import MemoraSystem
import MetadataKit
import Testing

/// The README's command-line examples, run as written (on a pseudo-terminal, answering yes to
/// what they ask), in a home folder with the photos they name; so the README stays true.
@Suite("The README's examples, end to end")
struct ReadmeExamplesTests {
    /// The command lines of the README's `sh` blocks in "The command-line tool".
    static func commandLines() throws -> [String] {
        let readme = String(decoding: try SystemFile(SystemPath.join(packageRoot, "README.md")).readAll(), as: UTF8.self)
        let section = try #require(readme.components(separatedBy: "## The command-line tool").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        var lines: [String] = []
        var inBlock = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inBlock = line == "```sh" ? !inBlock : false; continue }
            if inBlock, line.hasPrefix(".build/release/memora") || line.hasPrefix("GEMINI_API_KEY") { lines.append(line) }
        }
        return lines
    }

    /// The package's root folder (the test bundle is built under .build/).
    static var packageRoot: String {
        var folder = SystemPath.folder(of: FileSystem.absolutePath(CommandLine.arguments[0]))
        while folder != "/", !FileSystem.exists(SystemPath.join(folder, "Package.swift")) { folder = SystemPath.folder(of: folder) }
        return folder
    }

    @Test("every command of the README's command-line section runs as the README says")
    func examples() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let home = cli.folder + "/home"
        // The photos the examples name, made by the real encoders (a GPS position in each JPEG).
        for (index, name) in ["photos/a.jpg", "photos/b.jpg", "IMG_0001.jpg", "Pictures/2024/c.jpg", "DCIM/d.jpg"].enumerated() {
            _ = try cli.photo("home/" + name, seed: UInt64(index + 1))
        }
        for name in ["IMG_0001.heic", "IMG_0002.heic", "IMG_0003.heic"] {
            try ImageEncoder.write(try SyntheticPhoto.landscape(width: 320, height: 240, seed: 9), to: home + "/" + name, as: .heif())
        }
        _ = try cli.photo("home/photo.jpg", seed: 7)
        let lines = try Self.commandLines()
        #expect(lines.count >= 25, "the README's examples were found: \(lines.count)")
        // What is expected to fail, as the README says: no model runs here, and nothing reaches the internet
        // (without --fallback none, the on-device description is written instead).
        let expectedStatus: [String: Int32] = [
            ".build/release/memora caption --fallback none ~/Pictures ": 2,  // "fails, writing nothing, when none runs"
        ]
        var vaultID = ""
        for line in lines where !line.hasPrefix("GEMINI_API_KEY") {  // it would call Google
            var command = "cd '\(home)' && " + line.replacingOccurrences(of: ".build/release/memora", with: "'\(cli.executable)'")
            command = command.replacingOccurrences(of: "<id>", with: vaultID)
            // A command that asks runs on a pseudo-terminal and is answered yes, as a person would.
            let asks = line.contains("vault remove") || line.contains("--to 0")
            let environment = ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share"]
            let result = asks
                ? try cli.run(executable: "/usr/bin/script", ["-qec", command, "/dev/null"], input: "y\n", environment: environment)
                : try cli.run(executable: "/bin/sh", ["-c", command], environment: environment)
            let expected = expectedStatus.first { line.hasPrefix($0.key) }?.value ?? 0
            #expect(result.status == expected, "\(line)\n\(result.out)\(result.err)")
            if line.contains("vault list") {
                let json = result.out.drop { $0 != "[" }
                vaultID = ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]])?.first?["id"] as? String ?? ""
            }
        }
        #expect(!vaultID.isEmpty, "vault list gave an id for the export and remove examples")
    }
}
