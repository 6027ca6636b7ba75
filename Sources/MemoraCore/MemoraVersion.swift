/// The version of the Memora package, reported by `memora --version`.
public enum MemoraVersion {
    /// Semantic version of this release.
    public static let string = "0.1.0"
}
