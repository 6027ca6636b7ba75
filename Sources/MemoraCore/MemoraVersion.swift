internal import MemoraSystem

/// The version of the Memora package, reported by `memora --version` (and by `memora-server`, whose
/// health route says the same number).
public enum MemoraVersion {
    /// Semantic version of this release.
    public static let string = PackageVersion.string
}
