import Foundation
internal import MemoraSystem

/// Keeps the vault's master key. Linux uses ``FileKeyStore``; tests use
/// ``InMemoryKeyStore``; an iOS app can conform with the Keychain.
public protocol KeyStore: Sendable {
    /// The stored master key, or nil when none has been created yet.
    func loadMasterKey() throws(VaultCryptoError) -> SecretKey?
    /// Stores `key`, replacing any previous master key.
    func saveMasterKey(_ key: SecretKey) throws(VaultCryptoError)
}

extension KeyStore {
    /// The stored master key, creating and storing a random one the first time.
    public func loadOrCreateMasterKey() throws(VaultCryptoError) -> SecretKey {
        if let key = try loadMasterKey() { return key }
        let key = SecretKey()
        try saveMasterKey(key)
        return key
    }
}

/// A key store that lives only in memory, for tests and previews.
public final class InMemoryKeyStore: KeyStore, Sendable {
    private let key = Locked<SecretKey?>(nil)

    /// An empty store.
    public init() {}

    public func loadMasterKey() throws(VaultCryptoError) -> SecretKey? {
        key.withLock { $0 }
    }

    public func saveMasterKey(_ key: SecretKey) throws(VaultCryptoError) {
        self.key.withLock { $0 = key }
    }
}
