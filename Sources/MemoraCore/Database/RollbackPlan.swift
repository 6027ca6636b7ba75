/// What a rollback would do (``CaptionEditor/checkRollback(path:to:)``): the level of the photo's
/// history it returns to and the caption the photo would then carry.
public struct RollbackPlan: Sendable, Hashable, Codable {
    /// The level: 0 is the photo before Memora, N the photo right after history entry N.
    public var level: Int
    /// How many entries the photo's history has now.
    public var entryCount: Int
    /// The caption the photo would carry (nil: none, or not known for an earlier release's snapshot).
    public var caption: String?
    /// The alt text the photo would carry.
    public var altText: String?
}
