internal import MemoraSystem

/// The address devices and browsers reach a hub at, and why it was chosen (`memora-server pair` and
/// `dashboard` print both, so a person can tell when a phone will not reach it).
public struct HubAddress: Sendable, Hashable {
    /// The IP address or name.
    public let host: String
    /// The port.
    public let port: Int
    /// Why this address, in a sentence a person can act on.
    public let reason: String

    /// An address, and why it was chosen.
    public init(host: String, port: Int, reason: String) {
        self.host = host
        self.port = port
        self.reason = reason
    }

    /// The address of a hub that listens on `host`:`port`: for a hub listening on every network, this
    /// machine's private network address (192.168.x.x, 10.x.x.x, 172.16–31.x.x) where it has one.
    static func reaching(listeningOn host: String, port: Int) -> HubAddress {
        guard ["0.0.0.0", "::"].contains(host) else {
            if NetworkAddress.kind(of: host) == .loopback || host == "localhost" {
                return HubAddress(host: host, port: port, reason: "the hub listens on the loopback only, so only programs on this machine reach it; "
                                  + "start it with --host 0.0.0.0 for devices on the home network")
            }
            return HubAddress(host: host, port: port, reason: "the address the hub listens on")
        }
        guard let address = NetworkAddress.localIPv4() else {
            return HubAddress(host: "127.0.0.1", port: port, reason: "this machine has no network but the loopback: only programs on it reach the hub")
        }
        if NetworkAddress.kind(of: address) == .privateNetwork {
            return HubAddress(host: address, port: port, reason: "this machine's private network address (the hub listens on every network)")
        }
        return HubAddress(host: address, port: port, reason: "this machine's network address, not a private one: check that devices can reach it, or give --host")
    }
}
