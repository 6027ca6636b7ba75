/// This machine's addresses on its networks.
package enum NetworkAddress {
    /// The IPv4 address of the first interface that is up and not the loopback (what devices on the
    /// home network reach), or nil when there is none.
    package static func localIPv4() -> String? {
        SystemShim.localIPv4()
    }
}
