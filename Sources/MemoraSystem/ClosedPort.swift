#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that is held and never listened on: a connection to it is refused, and no
/// other socket can take the port while this value lives.
///
/// Closing a listener and reusing its port races every other server the process starts (the
/// kernel may hand the same ephemeral port out again); a bound socket without `listen` does not.
package final class ClosedPort: Sendable {
    /// The port number on 127.0.0.1.
    package let port: UInt16
    private let descriptor: Int32

    /// Binds a TCP socket to an ephemeral port of 127.0.0.1 and keeps it without listening.
    package init() throws(SystemError) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw SystemError.last("open a socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let error = SystemError.last("bind a loopback port")
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}
