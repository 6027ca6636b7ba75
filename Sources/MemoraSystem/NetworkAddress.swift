#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This machine's addresses on its networks, and what kind each is.
package enum NetworkAddress {
    /// What an address reaches.
    package enum Kind: Sendable, Equatable {
        /// This machine only (127.0.0.0/8, ::1).
        case loopback
        /// A private home or office network (10/8, 172.16/12, 192.168/16, fd00::/8), or a link-local one.
        case privateNetwork
        /// Any other address.
        case other
    }

    /// The addresses (IPv4 and IPv6, as text) of the interfaces that are up, the loopback's included.
    package static func all() -> [String] {
        SystemShim.localAddresses()
    }

    /// The IPv4 address devices on the home network reach this machine at: the first private
    /// network address (192.168.x.x, 10.x.x.x, 172.16–31.x.x) of an interface that is up, else its
    /// first other IPv4 address that is not the loopback, or nil when there is none.
    package static func localIPv4() -> String? {
        let candidates = all().filter { !$0.contains(":") && kind(of: $0) != .loopback }
        return candidates.first { kind(of: $0) == .privateNetwork } ?? candidates.first
    }

    /// What `address` (IPv4 or IPv6 text; a hostname is ``Kind/other``) reaches.
    package static func kind(of address: String) -> Kind {
        let lowered = address.lowercased()
        if lowered.contains(":") {
            if lowered == "::1" { return .loopback }
            if lowered.hasPrefix("::ffff:") { return kind(of: String(lowered.dropFirst(7))) }
            if lowered.hasPrefix("fd") || lowered.hasPrefix("fc") || lowered.hasPrefix("fe80:") { return .privateNetwork }
            return .other
        }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        guard parts.count == 4, let a = parts[0], let b = parts[1], parts[2] != nil, parts[3] != nil else { return .other }
        switch (a, b) {
        case (127, _): return .loopback
        case (10, _), (192, 168), (169, 254): return .privateNetwork
        case (172, 16...31): return .privateNetwork
        default: return .other
        }
    }

    /// Whether `code`, an `errno` a failed `bind` gave, means another program already listens on the port.
    package static func isAddressInUse(_ code: Int32) -> Bool {
        code == EADDRINUSE
    }
}
