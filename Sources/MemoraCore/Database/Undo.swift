/// What undoing an operation does, or would do, to one photo (``CaptionEditor/undo(paths:operation:keepModificationTime:)``).
public enum UndoOutcome: Sendable, Hashable {
    /// The operation's write to the photo is undone (with the dry run: would be, with this plan).
    case undone(RollbackPlan)
    /// The operation did not write to the photo: it is left as it is.
    case notTouched
    /// The operation wrote to the photo, but a later operation (its number, nil for a write recorded
    /// without one) wrote to it since: that one is undone first.
    case changedSince(operation: Int64?)
}

/// One photo of an undo.
public struct UndoResult: Sendable {
    /// The photo as given.
    public var path: String
    /// What was done to it, or why it failed.
    public var outcome: Result<UndoOutcome, MemoraError>
}

/// What an undo did: the operation it undid and each photo's outcome.
public struct UndoReport: Sendable {
    /// The operation undone; nil when none of the photos' writes belongs to an operation (they were
    /// recorded before Memora kept operations), and each photo's last write was undone instead.
    public var operation: Int64?
    /// The operation the undo itself was recorded as (it can be undone in turn); nil when it wrote nothing.
    public var undoneAs: Int64?
    /// Each photo given, once, in order.
    public var photos: [UndoResult]
}
