import Foundation
internal import MemoraSystem
import ImageKit
import MetadataKit
import PhotoIndex
package import PhotoVision
internal import PhotoVisionCore
import VaultCrypto
import MemoraCore

/// `memora demo` as a library call: generates a sample photo library with the real encoders
/// (every format, and a family album across nine years with dates, places and people:
/// ``SampleFamilyAlbum``) and runs the main job on it. Every photo is inspected and gets an upright thumbnail (the
/// broken samples are refused with their reason); every photo is captioned through the durable
/// queue and the model selector (on-device: Ollama when it runs, else the basic description)
/// with MetadataKit's verified write and the history; the library is indexed and a memory
/// collage and a collage of one person are chosen from the index and rendered; and the photos are encrypted into a vault,
/// which is verified and one of its photos exported and compared with the original.
///
/// Everything is written under ``output``; what an earlier run left there is replaced.
package struct DemoJob: Sendable {
    /// A step's progress: `completed` of `total` items of `stage` ("thumbnails", "vault") are done.
    package struct Progress: Sendable, Hashable {
        /// The step.
        package var stage: String
        /// Items done.
        package var completed: Int
        /// Items in the step.
        package var total: Int
        /// The item just done (a file name).
        package var item: String
    }

    /// The folder the sample library and every result go in.
    package var output: String
    /// The longest side of the thumbnails, in pixels.
    package var thumbnailSize: Int

    /// A demo writing into `output`.
    package init(output: String, thumbnailSize: Int = 384) {
        self.output = output
        self.thumbnailSize = thumbnailSize
    }

    /// Runs every step and reports what each did; `onProgress` follows the longer steps.
    package func run(onProgress: @Sendable (Progress) -> Void = { _ in }) async throws -> DemoReport {
        let start = ContinuousClock.now  // how long the run took: monotonic, whatever the wall clock does
        let library = output + "/library"
        let thumbnails = output + "/thumbnails"
        for folder in [library, thumbnails] { try FileSystem.makeFolder(folder) }
        let files = try SampleLibrary.generate(in: library)
        // With the vision models installed: a real face for Ana's portraits, and faces and scenes in the index.
        let vision = try? IndexVision.installed()
        let album = try SampleFamilyAlbum.generate(in: library + "/family", face: vision == nil ? nil : Self.faceSample())
            .map { "family/" + $0 }
        let photos = makeThumbnails(files, library: library, into: thumbnails, onProgress: onProgress)
        // Real photos beside the generated ones, described by the same caption job.
        let real = try Self.copyRealPhotos(into: library + "/real-photos")
        let captioning = try await caption(library: library)

        // The library indexed, and a memory collage chosen and rendered from the index.
        let indexPath = output + "/index.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileSystem.remove(indexPath + suffix) }
        let index = try PhotoIndexDatabase(path: indexPath)
        let indexed = try await PhotoIndexer(database: index, vision: vision).index(DirectoryPhotoLibrary(root: library))
        let people = vision == nil ? nil : try PeopleClustering(database: index).update()
        let themes = vision == nil ? nil : try ThemeClustering(database: index).run()
        let collagePath = output + "/collage.jpg"
        let collage = try await CollageJob(database: index, request: CollageRequest(source: .everything, count: 6, seed: 0)).run(writingTo: collagePath).collage
        // A collage of one person of the family album, with a title line placed off the faces.
        let person = SampleFamilyAlbum.people[0]
        let personCollagePath = output + "/collage-\(person.lowercased()).jpg"
        let personCollage = try await CollageJob(database: index, request: CollageRequest(source: .person(person), count: 6, seed: 0),
                                                 title: CollageTitle("\(person), 2017–2025")).run(writingTo: personCollagePath).collage
        // A collage of the library's most common theme.
        var themeCollage: (path: String, theme: String, photos: Int)?
        if let theme = themes?.themes.first {
            let path = output + "/collage-\(theme.value).jpg"
            let made = try await CollageJob(database: index, request: CollageRequest(source: .theme(theme.value), count: 6, seed: 0),
                                            title: CollageTitle(theme.value.capitalized)).run(writingTo: path)
            themeCollage = (path, theme.value, made.collage.cells.count)
        }
        let vault = try encrypt((files + album).map { library + "/" + $0 }, onProgress: onProgress)

        return DemoReport(
            library: library, photos: photos, index: indexPath, indexed: indexed.indexed, indexFailed: indexed.failed,
            collage: collagePath, collageWidth: collage.image.width, collageHeight: collage.image.height, collagePhotos: collage.cells.count,
            albumPhotos: album.count, personCollage: personCollagePath, personCollagePhotos: personCollage.cells.count,
            visionUsed: vision != nil, people: try index.people().map { DemoReport.Person(name: $0.name, photos: $0.photoCount) },
            newPeople: people?.newPeople ?? 0, themes: themes?.themes.map { "\($0.value) (\($0.count))" } ?? [],
            themeCollage: themeCollage?.path, themeCollagePhotos: themeCollage?.photos ?? 0,
            captionDatabase: captioning.database, captioned: captioning.summary.captioned + captioning.summary.recovered,
            captions: captioning.captions, captionModels: captioning.summary.models, vault: vault, seconds: (ContinuousClock.now - start) / .seconds(1),
            realPhotos: real.compactMap { file in
                captioning.items[file].map { DemoReport.RealPhoto(file: "real-photos/" + file, caption: $0.caption, altText: $0.altText) }
            })
    }

    /// The real photos the models script installs (scikit-image's astronaut, coffee, cat, rocket,
    /// coins, printed page and handwriting; their terms in `photos/LICENSE`), copied into `folder`;
    /// none when the models are not installed. Returns their file names.
    static func copyRealPhotos(into folder: String, models: VisionModels = .installed) throws -> [String] {
        let sources = ["fixtures/astronaut.png", "photos/coffee.png", "photos/chelsea.png", "photos/rocket.jpg", "photos/coins.png",
                       "photos/page.png", "photos/text.png"].map { models.folder + "/" + $0 }.filter { FileSystem.exists($0) }
        guard !sources.isEmpty else { return [] }
        try FileSystem.makeFolder(folder)
        return try sources.map { source in
            let name = SystemPath.fileName(of: source)
            try AtomicFileWriter.write(try SystemFile(source).readAll(), to: folder + "/" + name)
            return name
        }
    }

    /// The astronaut photo the models script installs (NASA, package domain), with the box of her
    /// face as the detector finds it; nil when the fixture or the models are missing.
    package static func faceSample(models: VisionModels = .installed) -> SampleFamilyAlbum.FaceSample? {
        guard let image = try? ImageDecoder.decode(contentsOf: models.folder + "/fixtures/astronaut.png"),
              let analyzer = try? DlibFaceAnalyzer(models: models, options: DlibFaceAnalyzer.Options(computesEmbeddings: false)),
              let face = (try? analyzer.faces(in: image))?.first else { return nil }
        let box = PixelRect(x: Int(face.x * Double(image.width)), y: Int(face.y * Double(image.height)),
                            width: Int(face.width * Double(image.width)), height: Int(face.height * Double(image.height)))
        return SampleFamilyAlbum.FaceSample(image: image, box: box)
    }

    /// Inspects each sample and writes its upright thumbnail as JPEG; a refused one keeps its reason.
    func makeThumbnails(_ files: [String], library: String, into folder: String, onProgress: @Sendable (Progress) -> Void) -> [DemoReport.Photo] {
        var photos: [DemoReport.Photo] = []
        for (index, file) in files.enumerated() {
            let path = library + "/" + file
            var photo = DemoReport.Photo(file: file)
            do throws(ImageError) {
                let info = try ImageDecoder.info(contentsOf: path)
                (photo.format, photo.width, photo.height) = (info.format.displayName, info.uprightWidth, info.uprightHeight)
                let thumbnail = try ImageDecoder.thumbnail(contentsOf: path, maxPixelSize: thumbnailSize, options: DecodingOptions(applyOrientation: true))
                let name = folder + "/" + (file as NSString).deletingPathExtension + ".jpg"
                try ImageEncoder.write(thumbnail, to: name, as: .jpeg())
                photo.thumbnail = name
            } catch {
                photo.error = error.reason
            }
            photos.append(photo)
            onProgress(Progress(stage: "thumbnails", completed: index + 1, total: files.count, item: file))
        }
        return photos
    }

    /// Captions the library through the caption job, in a fresh database beside it.
    func caption(library: String) async throws -> (database: String, summary: CaptionScheduler.Summary, captions: [String: String],
                                                  items: [String: (caption: String, altText: String)]) {
        let databasePath = output + "/memora.sqlite"
        for suffix in ["", "-wal", "-shm", ".worker-lock"] { try? FileSystem.remove(databasePath + suffix) }
        let database = try CaptionDatabase(path: databasePath)
        // The demo runs on any machine: without a model server, the basic description (marked as such in each photo).
        let job = CaptionJob(database: database, models: .configured(CaptionConfiguration(mode: .onDevice, fallback: .basic)),
                             ignoresConstraints: true, maxWait: 0)
        let report = try await job.run(paths: [library])
        var captions: [String: String] = [:]
        var items: [String: (caption: String, altText: String)] = [:]
        for item in try ProcessingQueue(database: database).items(status: .completed) {
            if let caption = item.caption {
                captions[SystemPath.fileName(of: item.assetURI)] = caption
                items[SystemPath.fileName(of: item.assetURI)] = (caption, item.altText ?? caption)
            }
        }
        return (databasePath, report.summary, captions, items)
    }

    /// Encrypts the photos into a fresh vault (its key file kept beside it, for the demo only),
    /// verifies it, and checks that an export is byte-identical to the original.
    func encrypt(_ paths: [String], onProgress: @Sendable (Progress) -> Void) throws -> DemoReport.Vault {
        let folder = output + "/vault"
        let keyFile = output + "/keys/vault.key"
        try? FileSystem.removeTree(folder)
        try? FileSystem.remove(keyFile)
        try FileSystem.makeFolder(output + "/keys", permissions: 0o700)
        let vault = try Vault.create(at: folder, keyStore: FileKeyStore(path: keyFile))
        var added: [(photo: VaultPhoto, original: String)] = []
        let results = VaultImport(thumbnailSize: 256).add(paths, to: vault) { completed, path in
            onProgress(Progress(stage: "vault", completed: completed, total: paths.count, item: SystemPath.fileName(of: path)))
        }
        for (path, result) in zip(paths, results) { added.append((try result.get().photo, path)) }
        let report = try vault.verify()
        var matches = false
        if let first = added.first {
            let exported = output + "/exported-" + first.photo.originalFilename
            try vault.export(first.photo.id, to: exported)
            matches = try SHA256Digest.hash(contentsOf: exported) == SHA256Digest.hash(contentsOf: first.original)
            try? FileSystem.remove(exported)
        }
        return DemoReport.Vault(folder: folder, keyFile: keyFile, encrypted: added.count, healthy: report.isHealthy,
                                exportMatches: matches, algorithm: AEADAlgorithm.preferred.description)
    }
}
