import Foundation
import Testing

/// The README's Swift examples are compiled with the package (ReadmeSnippets.swift): this test
/// checks that every example in README.md is there line for line.
@Suite("The README's Swift examples compile")
struct ReadmeSwiftExamplesTests {
    static var packageRoot: String {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder.path
    }

    @Test("every swift block of README.md (but the Package.swift excerpt) is in ReadmeSnippets.swift, which compiles")
    func examplesAreCompiled() throws {
        let readme = try String(contentsOfFile: Self.packageRoot + "/README.md", encoding: .utf8)
        let snippets = try String(contentsOfFile: Self.packageRoot + "/Tests/ReadmeTests/ReadmeSnippets.swift", encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
            .filter { !$0.contains("Package.swift of your project") }
        #expect(blocks.count >= 6, "the README's Swift examples were found")
        for block in blocks {
            let code = block.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("import ") }
                .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(snippets.contains(code), "README example not compiled (copy it into ReadmeSnippets.swift): \(code.prefix(120))")
        }
    }
}
