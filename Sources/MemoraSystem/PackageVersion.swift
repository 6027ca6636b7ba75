/// The version of the Memora package: one number for every module, tool and server of it.
package enum PackageVersion {
    /// Semantic version of this release (`memora --version`, `memora-server --version`, `GET /api/health`).
    package static let string = "0.1.0"
}
