import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared library loaded at run time (`dlopen`), for a C library that is optional or installed
/// outside the system's library path (ONNX Runtime, installed with the models). The library stays
/// loaded for the life of the process (libraries with thread-local state must not be unloaded).
package final class DynamicLibrary: Sendable {
    /// The file it was loaded from.
    package let path: String
    // Unchecked: the handle never changes, and dlsym may be called from any thread.
    nonisolated(unsafe) private let handle: UnsafeMutableRawPointer

    /// Why a library could not be loaded: the loader's own words (a missing file, a missing
    /// dependency, the wrong architecture).
    package struct LoadError: Error, Sendable, Hashable {
        /// The library's path.
        package var path: String
        /// The reason, without the path.
        package var reason: String
    }

    /// Loads the library at `path` (its symbols resolved now).
    package init(path: String) throws(LoadError) {
        guard FileSystem.exists(path) else { throw LoadError(path: path, reason: "no such file") }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let message = dlerror().map { String(cString: $0) } ?? "the loader gave no reason"
            // dlerror repeats the path first: keep only the reason after it.
            let reason = message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
            throw LoadError(path: path, reason: reason)
        }
        self.path = path
        self.handle = handle
    }

    /// The address of `symbol`, or nil when the library does not export it.
    package func symbol(_ symbol: String) -> UnsafeMutableRawPointer? {
        dlsym(handle, symbol)
    }
}
