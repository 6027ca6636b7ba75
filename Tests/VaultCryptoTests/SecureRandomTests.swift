import Testing
import VaultCrypto

@Suite("libsodium bridge")
struct SecureRandomTests {
    @Test("random bytes have the requested length and differ between calls")
    func randomBytes() {
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first.count == 32 && second.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test("random bytes are not visibly biased (each bit set about half the time)")
    func balance() {
        let bytes = SecureRandom.bytes(count: 4096)
        let ones = bytes.reduce(0) { $0 + $1.nonzeroBitCount }
        // 32768 fair bits: mean 16384, standard deviation 90.5; 6 sigma is about 543.
        #expect(abs(ones - 16384) < 543)
    }

    @Test("VaultCrypto runs on libsodium 1.0.18 or later")
    func version() throws {
        let parts = SecureRandom.libraryVersion.split(separator: ".").compactMap { Int($0) }
        try #require(parts.count == 3)
        #expect(parts[0] > 1 || (parts[0] == 1 && (parts[1] > 0 || parts[2] >= 18)))
    }
}
