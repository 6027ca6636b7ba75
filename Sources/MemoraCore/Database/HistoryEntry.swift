public import Foundation

/// One write Memora made to a photo (a row of `caption_history`): a caption, a person's edit,
/// a rollback, a `memora metadata write` or a location strip.
public struct HistoryEntry: Sendable, Hashable, Codable {
    /// What the write was.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A caption made by a model (or the basic description) during automatic processing.
        case generated
        /// A caption written by a person (`memora edit`); automatic processing never replaces it.
        case manual
        /// A person rolled the photo back to an earlier level (`memora rollback`, `memora metadata restore`).
        case rollback
        /// A caption written with `memora metadata write`; a person's, like a manual edit.
        case metadataWrite = "metadata-write"
        /// The location was removed (`memora metadata strip-location`); the caption did not change.
        case stripLocation = "strip-location"

        /// Whether the entry set the photo's caption (a location strip does not).
        public var setsCaption: Bool { self != .stripLocation }
        /// Whether a person chose the caption (automatic processing then leaves the photo alone).
        public var isPersonal: Bool { self == .manual || self == .rollback || self == .metadataWrite }
    }

    /// The entry's number for its photo, from 1 (oldest). 0 is the photo before Memora wrote to it.
    public var number: Int
    /// The photo.
    public var asset: String
    /// The caption written (nil for a location strip, or when a rollback restored a photo without one).
    public var caption: String?
    /// The alt text written.
    public var altText: String?
    /// The model (`provider:name`), `manual`, `metadata-write`, `strip-location` or `rollback:N`.
    public var modelUsed: String
    /// Whether a person wrote or chose this caption.
    public var wasManualEdit: Bool
    /// What the write was.
    public var kind: Kind
    /// When it was written.
    public var createdAt: Date
    /// Whether the photo's metadata before this write was saved, so that `rollback --to N-1`
    /// restores it byte for byte (entries recorded before snapshots were kept per entry have none).
    public var hasSnapshot: Bool
    /// The operation (one command run) the write belonged to (``HistoryOperation``); nil for entries
    /// recorded before Memora kept operations.
    public var operation: Int64?
}

/// One command run that wrote to photos: a caption run, a `metadata write`, a location strip, an
/// edit, a restore. `memora history` lists them; `memora metadata restore` undoes the last one on the
/// photos it is given (or the one named with `--operation`).
public struct HistoryOperation: Sendable, Hashable, Codable {
    /// Its number (increasing).
    public var id: Int64
    /// What it did (the kind of its entries).
    public var kind: HistoryEntry.Kind
    /// When it started.
    public var createdAt: Date
    /// How many photos it wrote to.
    public var photoCount: Int
}

/// What the photo carried before Memora first wrote to it: entry 0 of its history.
public struct OriginalCaption: Sendable, Hashable, Codable {
    /// The caption it had (nil when none).
    public var caption: String?
    /// The alt text it had.
    public var altText: String?
    /// When Memora first wrote to it.
    public var savedAt: Date
}
