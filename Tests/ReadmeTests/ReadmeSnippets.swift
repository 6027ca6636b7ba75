// The README's Swift examples, compiled (never run: they name photos and servers that are not here).
// `ReadmeSwiftExamplesTests` checks that each example in README.md appears here line for line, so an
// example that stops compiling fails the build. Each example is the body of one function; what
// follows it only uses its values (no warnings).

import Foundation
import ImageKit
import MemoraCore
import MetadataKit
import PhotoIndex
import VaultCrypto

func readmeExample1() async throws {
let configuration = CaptionConfiguration(mode: .onDevice)          // Ollama on this machine, llava
let result = try await configuration.describe(file: "IMG_0001.jpg")  // MemoraError.noModel when none runs
try CaptionWriter.write(CaptionUpdate(caption: result.description, altText: result.altText), to: "IMG_0001.jpg")
}

func readmeExample2() async throws {
// A 384-px upright thumbnail: JPEGs are decoded at 1/2, 1/4 or 1/8 scale first.
let thumbnail = try ImageDecoder.thumbnail(
    contentsOf: "IMG_0001.jpg", maxPixelSize: 384,
    options: DecodingOptions(applyOrientation: true))

// Without decoding pixels.
let info = try ImageDecoder.info(contentsOf: "IMG_0001.heic")
print(info.format, info.width, info.height, info.orientation)

// A collage cell: crop to the cell's aspect ratio, round the corners, save without metadata.
var canvas = try Canvas(width: 1200, height: 1500, background: .white)
let cells = try Canvas.gridCells(width: 1200, height: 1500, columns: 2, rows: 3, spacing: 24, padding: 48)
try canvas.draw(thumbnail, filling: cells[0], cornerRadius: 28)
try ImageEncoder.write(canvas.image, to: "collage.jpg", as: .jpeg(JPEGEncodingOptions(quality: 0.9)))
}

func readmeExample3() async throws {
// The caption a screen reader should use: XMP, then EXIF, then IPTC, camera boilerplate skipped.
let captions = try MetadataReader.read(contentsOf: "photo.jpg").captions
if let caption = captions.caption, let source = captions.source {
    print(caption, source.rawValue, captions.altText ?? "no alt text")   // Harbour at noon xmp Two boats
}

// Written into XMP, EXIF and IPTC (where the format has them), verified in memory, then replaced atomically.
let snapshot = try CaptionWriter.write(
    CaptionUpdate(caption: "Harbour at noon, two fishing boats", altText: "Two boats in a harbour"),
    to: "photo.jpg")

// Puts back exactly what the write replaced.
try CaptionWriter.restore(snapshot, to: "photo.jpg")
}

func readmeExample4() async throws {
// The master key lives in a 0600 key file (one per vault), optionally protected by a passphrase (Argon2id).
let keyStore = FileKeyStore(
    path: NSHomeDirectory() + "/.config/memora/keys/my-vault.key",
    passphrase: ProcessInfo.processInfo.environment["MEMORA_PASSPHRASE"])

// Vault.create the first time (it stores a new key if the file does not exist; its folder must); Vault.open afterwards.
let vault = try Vault.open(at: NSHomeDirectory() + "/Vault", keyStore: keyStore)

// Encrypted into Photos/2024/07/{id}.encrypted with its own random key; the original is not changed.
// Adding the same photo again finds it by content (`wasAlreadyStored`) instead of storing a copy.
let photo = try vault.add(
    fileAt: "IMG_0001.jpg",
    details: VaultPhotoDetails(format: "jpeg", width: 4000, height: 3000,
                               takenAt: Date(timeIntervalSince1970: 1_720_000_000), tags: ["beach"])).photo

let bytes = try vault.contents(of: photo.id)        // in memory; nothing returned unless every chunk verifies
try vault.export(photo.id, to: "restored.jpg")      // streaming; the file appears only when complete

// Sharing: a signed .locaphoto bundle that only the recipient's identity can open.
let me = try SharingIdentity.loadOrCreate(in: FileKeyStore(path: NSHomeDirectory() + "/.config/memora/identity.key"))
let friend = SharingPublicKey(text: "memora-share1:…")!   // what `memora vault keygen` printed for them
let bundle = try vault.share(photo.id, from: me, to: .identity(friend))
// On their side: try theirVault.importShare(bundle, identity: them, expectedSender: me.publicKey)
_ = (bytes, bundle)
}

func readmeExample5() async throws {
let database = try CaptionDatabase(path: CaptionDatabase.defaultPath)
// The ai_mode preference decides: on-device (Ollama at 127.0.0.1:11434, llava), where no pixel
// ever leaves the machine, or gemini / gpt with keys from the environment or the secrets file.
let job = CaptionJob(database: database, models: .configured(CaptionConfiguration()))
let report = try await job.run(paths: ["/photos"])   // MemoraError.noModel, nothing written, when no model can run
print(report.summary.captioned, report.failures)     // pauses while charging_only / wifi_only do not hold

let editor = CaptionEditor(database: database)
try editor.edit(path: "/photos/IMG_1.jpg", caption: "Mum and the roses.")   // never replaced automatically
try editor.rollback(path: "/photos/IMG_1.jpg", to: 0)                         // the photo as before Memora
}

func readmeExample6() async throws {
let index = try PhotoIndexDatabase(path: PhotoIndexDatabase.defaultPath, creatingIfMissing: true)
let summary = try await PhotoIndexer(database: index).index(DirectoryPhotoLibrary(root: "/photos"))
let picker = try PersonCache(database: index)   // years, places, people with 10+ photos
// Chosen by the seed's rules (deterministic for a seed), face-aware crops, written as the extension says.
let collage = try await CollageJob(database: index, request: CollageRequest(source: .year(2019)), layout: .dynamic)
    .run(writingTo: "memories.png")
print(summary.indexed, picker.people.count, collage.collage.cells.count)
}
