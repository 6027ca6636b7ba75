import MemoraCore
import Testing

@Suite("Package version")
struct MemoraVersionTests {
    @Test("the version is a semantic version MAJOR.MINOR.PATCH")
    func semanticVersion() {
        let parts = MemoraVersion.string.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
    }
}
