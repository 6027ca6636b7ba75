import Foundation
import MemoraDemo
import MemoraSystem
import MetadataKit
import PhotoIndex
import Testing
import TestSupport
@testable import MemoraCore

/// The demo's family album carries what a phone or a photo manager leaves in a file, and the
/// index, its people and places, collages and the basic description find it.
@Suite("The demo's family album")
struct SampleFamilyAlbumTests {
    @Test("every photo carries its date with its offset, its place and its people; the index lists them and a collage of Ana fills its six cells")
    func albumIsReadAndIndexed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileSystem.removeTree(folder) }
        let names = try SampleFamilyAlbum.generate(in: folder + "/family", width: 320, height: 240)
        let expected = SampleFamilyAlbum.photos
        #expect(names.count == expected.count && names.count == 27)
        for photo in expected {
            let metadata = try MetadataReader.read(contentsOf: folder + "/family/" + photo.name)
            #expect(metadata.dateTaken?.iso8601.hasPrefix(String(photo.taken.prefix(19))) == true, "\(photo.name): \(String(describing: metadata.dateTaken))")
            #expect(metadata.dateTaken?.iso8601.hasSuffix(String(photo.taken.suffix(6))) == true, "the offset is kept: \(photo.name)")
            #expect(metadata.place?.city == photo.city && metadata.place?.country == photo.country && metadata.place?.sublocation == photo.sublocation)
            #expect(metadata.people == photo.faces.map(\.name), "\(photo.name)")
            #expect(metadata.regions.count == photo.faces.count)
        }

        let index = try PhotoIndexDatabase(path: folder + "/index.sqlite")
        let summary = try await PhotoIndexer(database: index).index(DirectoryPhotoLibrary(root: folder))
        #expect(summary.indexed == 27 && summary.failed == 0)
        let cache = try PersonCache(database: index, minimumPhotosPerPerson: 1)
        #expect(cache.people.first { $0.value == "Ana" }?.count == 18 && cache.people.first { $0.value == "Ben" }?.count == 14, "\(cache.people)")
        #expect(cache.years.count == 9 && cache.places.count == 4, "\(cache.years) \(cache.places)")
        let collage = try CollageJob(database: index, request: CollageRequest(source: .person("Ana"), count: 6)).check(writingTo: folder + "/ana.jpg")
        #expect(collage.selection.photos.count == 6, "nine portraits of Ana have her face over 15% of the photo")

        let described = try await CaptionConfiguration(fallback: .basic).describe(file: folder + "/family/2019-07-together.jpg")
        #expect(described.description.contains("Ana and Ben") && described.description.contains("July 2019") && described.description.contains("Porto"),
                "\(described.description)")
    }
}
