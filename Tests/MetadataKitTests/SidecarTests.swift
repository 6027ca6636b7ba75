import Foundation
import ImageKit
import Testing
@testable import MetadataKit
import TestSupport

@Suite("XMP sidecars", .tags(.exiftool))
struct SidecarTests {
    @Test("a new sidecar holds the caption and alt text, exiftool reads it, and the photo is not touched")
    func newSidecar() throws {
        let path = try makeJPEG("IMG_0001.heic")  // the content does not matter for a sidecar
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let photo = try Data(contentsOf: URL(fileURLWithPath: path))
        let sidecar = try CaptionWriter.writeSidecar(CaptionUpdate(caption: "Zoë on the ferry, 東京湾", altText: "A girl on a ferry"), for: path)
        #expect(sidecar == path + ".xmp")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == photo)
        let reading = try MetadataReader.read(contentsOf: sidecar).captions
        #expect(reading.xmp == "Zoë on the ferry, 東京湾" && reading.altText == "A girl on a ferry")
        #expect(try exiftoolValue("XMP-dc:Description", sidecar) == "Zoë on the ferry, 東京湾")
    }

    @Test("an existing sidecar (Lightroom's photo.xmp) keeps its other properties and languages")
    func existingSidecar() throws {
        let path = try makeJPEG("DSC_0002.jpg")
        let folder = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lightroom = folder + "/DSC_0002.xmp"
        try exiftool(["-q", "-o", lightroom, "-XMP-dc:Subject=harbour", "-XMP-dc:Description-fr=Le port", "-XMP-xmp:Rating=4", path])
        let sidecar = try CaptionWriter.writeSidecar(CaptionUpdate(caption: "The harbour at noon"), for: path)
        #expect(sidecar == lightroom)
        #expect(try exiftoolValue("XMP-dc:Description", sidecar) == "The harbour at noon")
        #expect(try exiftoolValue("XMP-dc:Description-fr", sidecar) == "Le port")
        #expect(try exiftoolValue("XMP-dc:Subject", sidecar) == "harbour")
        #expect(try exiftoolValue("XMP-xmp:Rating", sidecar) == "4")
        #expect(throws: MetadataError.self) { try CaptionWriter.writeSidecar(CaptionUpdate(caption: "x"), for: folder + "/missing.heic") }
    }
}
