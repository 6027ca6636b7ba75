import Foundation
import MemoraCore

/// What ``DemoJob`` did, step by step: the sample photos and their thumbnails, the captions, the
/// index and its collage, and the vault.
public struct DemoReport: Sendable, Hashable, Codable {
    /// One sample photo: what `image info` found and its thumbnail, or why it was refused.
    public struct Photo: Sendable, Hashable, Codable {
        /// The file name in the library.
        public var file: String
        /// The format's name, when the photo could be read.
        public var format: String?
        /// The upright width in pixels.
        public var width: Int?
        /// The upright height in pixels.
        public var height: Int?
        /// The thumbnail written for it.
        public var thumbnail: String?
        /// Why it was refused (without the file name, which is beside it).
        public var error: String?
    }

    /// The vault step.
    public struct Vault: Sendable, Hashable, Codable {
        /// The vault's folder.
        public var folder: String
        /// The master key's file (beside the vault for the demo only; a real vault keeps it elsewhere).
        public var keyFile: String
        /// Photos encrypted into the vault.
        public var encrypted: Int
        /// Whether `verify` found the vault healthy.
        public var healthy: Bool
        /// Whether an exported photo is byte-identical to its original.
        public var exportMatches: Bool
        /// The AEAD the vault encrypted with.
        public var algorithm: String
    }

    /// The sample library's folder.
    public var library: String
    /// Every sample, in the order they were made.
    public var photos: [Photo]
    /// The photo index's database.
    public var index: String
    /// Photos the index analysed.
    public var indexed: Int
    /// Files the index recorded as unreadable, with their error.
    public var indexFailed: Int
    /// The collage's file.
    public var collage: String
    /// The collage's width in pixels.
    public var collageWidth: Int
    /// The collage's height in pixels.
    public var collageHeight: Int
    /// How many photos the collage shows.
    public var collagePhotos: Int
    /// Photos of the family album (under `family/` in the library).
    public var albumPhotos: Int
    /// The collage of one person of the album (Ana), with a title line.
    public var personCollage: String
    /// How many photos the person's collage shows.
    public var personCollagePhotos: Int
    /// A person found by face recognition, with their photo count.
    public struct Person: Sendable, Hashable, Codable {
        /// The name (from the photos' metadata), when one is known.
        public var name: String?
        /// Photos of the person.
        public var photos: Int
    }
    /// Whether the vision models were installed and used (faces in the pixels, people, themes).
    public var visionUsed: Bool
    /// The people face recognition found.
    public var people: [Person]
    /// People found for the first time.
    public var newPeople: Int
    /// The themes found, with their photo counts ("mountains (12)").
    public var themes: [String]
    /// A collage of the most common theme, when there is one.
    public var themeCollage: String?
    /// How many photos the theme collage shows.
    public var themeCollagePhotos: Int
    /// The caption database.
    public var captionDatabase: String
    /// Photos captioned (including any finished after an interruption).
    public var captioned: Int
    /// Each captioned photo's caption, by file name.
    public var captions: [String: String]
    /// How many photos each model captioned (`provider:model`).
    public var captionModels: [String: Int]
    /// The vault step.
    public var vault: Vault
    /// How long the whole demo took.
    public var seconds: Double
    /// A real photo described on the device.
    public struct RealPhoto: Sendable, Hashable, Codable {
        /// The file, in `library/real-photos/`.
        public var file: String
        /// The description written into it.
        public var caption: String
        /// The alt text written into it.
        public var altText: String
    }
    /// Real photos (scikit-image's, installed with the models) and their on-device descriptions;
    /// empty without the models.
    public var realPhotos: [RealPhoto] = []

    /// Whether some captions are the basic description (no AI model was reachable).
    public var usedBasicDescription: Bool { captionModels.keys.contains(BasicDescriptionGenerator.identifier) }
}
