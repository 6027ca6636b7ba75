import Foundation
import MemoraCore

/// What ``DemoJob`` did, step by step: the sample photos and their thumbnails, the captions, the
/// index and its collage, and the vault.
package struct DemoReport: Sendable, Hashable, Codable {
    /// One sample photo: what `image info` found and its thumbnail, or why it was refused.
    package struct Photo: Sendable, Hashable, Codable {
        /// The file name in the library.
        package var file: String
        /// The format's name, when the photo could be read.
        package var format: String?
        /// The upright width in pixels.
        package var width: Int?
        /// The upright height in pixels.
        package var height: Int?
        /// The thumbnail written for it.
        package var thumbnail: String?
        /// Why it was refused (without the file name, which is beside it).
        package var error: String?
    }

    /// The vault step.
    package struct Vault: Sendable, Hashable, Codable {
        /// The vault's folder.
        package var folder: String
        /// The master key's file (beside the vault for the demo only; a real vault keeps it elsewhere).
        package var keyFile: String
        /// Photos encrypted into the vault.
        package var encrypted: Int
        /// Whether `verify` found the vault healthy.
        package var healthy: Bool
        /// Whether an exported photo is byte-identical to its original.
        package var exportMatches: Bool
        /// The AEAD the vault encrypted with.
        package var algorithm: String
    }

    /// The sample library's folder.
    package var library: String
    /// Every sample, in the order they were made.
    package var photos: [Photo]
    /// The photo index's database.
    package var index: String
    /// Photos the index analysed.
    package var indexed: Int
    /// Files the index recorded as unreadable, with their error.
    package var indexFailed: Int
    /// The collage's file.
    package var collage: String
    /// The collage's width in pixels.
    package var collageWidth: Int
    /// The collage's height in pixels.
    package var collageHeight: Int
    /// How many photos the collage shows.
    package var collagePhotos: Int
    /// Photos of the family album (under `family/` in the library).
    package var albumPhotos: Int
    /// The collage of one person of the album (Ana), with a title line.
    package var personCollage: String
    /// How many photos the person's collage shows.
    package var personCollagePhotos: Int
    /// A person found by face recognition, with their photo count.
    package struct Person: Sendable, Hashable, Codable {
        /// The name (from the photos' metadata), when one is known.
        package var name: String?
        /// Photos of the person.
        package var photos: Int
    }
    /// Whether the vision models were installed and used (faces in the pixels, people, themes).
    package var visionUsed: Bool
    /// The people face recognition found.
    package var people: [Person]
    /// People found for the first time.
    package var newPeople: Int
    /// The themes found, with their photo counts ("mountains (12)").
    package var themes: [String]
    /// A collage of the most common theme, when there is one.
    package var themeCollage: String?
    /// How many photos the theme collage shows.
    package var themeCollagePhotos: Int
    /// The caption database.
    package var captionDatabase: String
    /// Photos captioned (including any finished after an interruption).
    package var captioned: Int
    /// Each captioned photo's caption, by file name.
    package var captions: [String: String]
    /// How many photos each model captioned (`provider:model`).
    package var captionModels: [String: Int]
    /// The vault step.
    package var vault: Vault
    /// How long the whole demo took.
    package var seconds: Double
    /// A real photo described on the device.
    package struct RealPhoto: Sendable, Hashable, Codable {
        /// The file, in `library/real-photos/`.
        package var file: String
        /// The description written into it.
        package var caption: String
        /// The alt text written into it.
        package var altText: String
    }
    /// Real photos (scikit-image's, installed with the models) and their on-device descriptions;
    /// empty without the models.
    package var realPhotos: [RealPhoto] = []

    /// Whether some captions are the basic description (no AI model was reachable).
    package var usedBasicDescription: Bool { captionModels.keys.contains(BasicDescriptionGenerator.identifier) }
}
