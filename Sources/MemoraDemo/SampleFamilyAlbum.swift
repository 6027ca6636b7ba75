import Foundation
internal import MemoraSystem
package import ImageKit
import MetadataKit

/// The demo's family album: photos across nine years, each with the metadata a phone or a photo
/// manager leaves in the file (XMP: the date taken with its offset, the city and country, the
/// people in it and their face regions, MWG), so that the index, its people and places, the
/// collages by year, place and person and the basic description have something to work on.
/// The pixels are synthetic (made with the real JPEG encoder); the faces exist only as regions.
package enum SampleFamilyAlbum {
    /// A person's face in a photo: a box in normalised coordinates of the upright photo, top-left origin.
    package struct Face: Sendable, Hashable {
        package var name: String
        package var x, y, width, height: Double
    }

    /// One photo of the album.
    package struct Photo: Sendable, Hashable {
        /// The file name.
        package var name: String
        /// When it was taken, in its own time zone (`2019-07-14T16:20:00+02:00`).
        package var taken: String
        /// The city and country.
        package var city: String, country: String
        /// The place within the city, when named.
        package var sublocation: String?
        /// The people in it.
        package var faces: [Face]
    }

    /// The people of the album.
    package static let people = ["Ana", "Ben", "Grandma Rosa"]

    /// The album: three photos a year from 2017 to 2025 in four places. Ana's face is large
    /// (over 15% of the photo) in a dozen of them, so a collage of her has enough photos.
    package static var photos: [Photo] {
        let places: [(city: String, country: String, sublocation: String?, offset: String)] = [
            ("Lyon", "France", nil, "+02:00"), ("Annecy", "France", "Lake shore", "+02:00"),
            ("Vienne", "France", "Grandma's house", "+01:00"), ("Porto", "Portugal", "Ribeira", "+01:00"),
        ]
        var result: [Photo] = []
        for year in 2017...2025 {
            for shot in 0..<3 {
                let index = (year - 2017) * 3 + shot
                let place = places[index % places.count]
                let month = [4, 7, 12][shot]
                let taken = String(format: "%04d-%02d-%02dT%02d:%02d:00%@", year, month, 3 + index % 25, 10 + shot * 3, index % 60, place.offset)
                var faces: [Face] = []
                switch shot {
                case 0:  // a portrait of Ana: her face fills a fifth of the photo
                    faces.append(Face(name: "Ana", x: 0.32, y: 0.18, width: 0.40, height: 0.48))
                case 1:  // Ana and Ben together, smaller faces; Grandma Rosa joins at her house
                    faces.append(Face(name: "Ana", x: 0.15, y: 0.30, width: 0.18, height: 0.22))
                    faces.append(Face(name: "Ben", x: 0.60, y: 0.28, width: 0.17, height: 0.21))
                    if place.sublocation == "Grandma's house" { faces.append(Face(name: "Grandma Rosa", x: 0.40, y: 0.10, width: 0.15, height: 0.20)) }
                default:  // a landscape in even years, Ben's portrait in odd ones
                    if year % 2 == 1 { faces.append(Face(name: "Ben", x: 0.30, y: 0.20, width: 0.42, height: 0.45)) }
                }
                result.append(Photo(name: String(format: "%04d-%02d-%@.jpg", year, month, ["portrait", "together", "outing"][shot]),
                                    taken: taken, city: place.city, country: place.country, sublocation: place.sublocation, faces: faces))
            }
        }
        return result
    }

    /// A real face for the album's portraits: a photo and the box of the face in it, in pixels.
    package struct FaceSample: Sendable {
        /// The photo (RGB).
        package var image: Image
        /// The face's box in the photo's pixels.
        package var box: PixelRect

        /// A face sample.
        package init(image: Image, box: PixelRect) {
            self.image = image
            self.box = box
        }
    }

    /// The photos that show the sample face without naming anyone (`2025-08-untagged-N.jpg`): face
    /// recognition puts them with Ana.
    package static let untaggedCount = 3

    /// Writes the album into `folder` (created if needed) and returns the file names. With `face`
    /// (the demo uses the astronaut photo the models script installs), Ana's portraits show that
    /// real face where her region says, large enough for her collage, and ``untaggedCount`` more
    /// photos show it with no name in their metadata, for face recognition to find.
    package static func generate(in folder: String, width: Int = 1600, height: Int = 1200, face: FaceSample? = nil) throws -> [String] {
        try FileSystem.makeFolder(folder)
        var names: [String] = []
        var album = photos
        if face != nil {
            for index in album.indices where album[index].name.hasSuffix("-portrait.jpg") {
                let placement = facePlacement(index)
                album[index].faces = [Face(name: "Ana", x: placement.x - 0.2, y: 0.23, width: 0.4, height: 0.54)]
            }
            for number in 1...untaggedCount {
                album.append(Photo(name: "2025-08-untagged-\(number).jpg", taken: "2025-08-0\(number)T11:00:00+02:00", city: "Lyon",
                                   country: "France", sublocation: nil, faces: []))
            }
        }
        for (index, photo) in album.enumerated() {
            var pixels = try SyntheticPhoto.landscape(width: width, height: height, seed: UInt64(100 + index))
            if let face, photo.name.hasSuffix("-portrait.jpg") || photo.name.contains("-untagged-") {
                // Her face moves from photo to photo (the same picture twice would be a near-duplicate).
                let placement = facePlacement(index)
                pixels = try paste(face, into: pixels, centre: (Int(placement.x * Double(width)), height / 2), faceSide: height * 54 / 100,
                                   mirrored: placement.mirrored)
            }
            let jpeg = try ImageEncoder.encode(pixels, as: .jpeg())
            let path = folder + "/" + photo.name
            try AtomicFileWriter.write(try SampleXMP.embedding(packet(for: photo), inJPEG: jpeg, source: path), to: path)
            names.append(photo.name)
        }
        return names
    }

    /// Where the sample face goes in photo `index`: the centre's share of the width, and whether it is mirrored.
    static func facePlacement(_ index: Int) -> (x: Double, mirrored: Bool) {
        (0.3 + Double(index * 7 % 5) * 0.1, index % 2 == 1)
    }

    /// `picture` with the square around `face`'s box (1.7 times its side) scaled so the face is
    /// `faceSide` pixels wide and centred on `centre`, mirrored left to right when asked.
    static func paste(_ face: FaceSample, into picture: Image, centre: (x: Int, y: Int), faceSide: Int, mirrored: Bool = false) throws -> Image {
        let side = min(face.image.width, face.image.height, face.box.width * 17 / 10)
        let x = min(max(0, face.box.x + face.box.width / 2 - side / 2), face.image.width - side)
        let y = min(max(0, face.box.y + face.box.height / 2 - side / 2), face.image.height - side)
        let target = min(picture.width, picture.height, faceSide * side / max(1, face.box.width))
        let crop = try face.image.resized(from: PixelRect(x: x, y: y, width: side, height: side), width: target, height: target)
        var pixels = picture.pixels
        let left = max(0, min(picture.width - target, centre.x - target / 2)), top = max(0, min(picture.height - target, centre.y - target / 2))
        let channels = crop.pixelFormat.bytesPerPixel
        for row in 0..<target {
            for column in 0..<target {
                let source = mirrored ? target - 1 - column : column
                let from = (row * target + source) * channels, to = ((top + row) * picture.width + left + column) * 3
                for channel in 0..<3 { pixels[to + channel] = crop.pixels[from + channel] }
            }
        }
        return try Image(width: picture.width, height: picture.height, pixelFormat: .rgb8, pixels: pixels)
    }

    /// The XMP packet of `photo`.
    static func packet(for photo: Photo) -> String {
        let names = photo.faces.map { "<rdf:li>\(escaped($0.name))</rdf:li>" }.joined()
        // MWG areas are given by their centre.
        let regions = photo.faces.map { box in
            "<rdf:li rdf:parseType=\"Resource\"><mwg-rs:Name>\(escaped(box.name))</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type>"
                + "<mwg-rs:Area stArea:x=\"\(box.x + box.width / 2)\" stArea:y=\"\(box.y + box.height / 2)\" stArea:w=\"\(box.width)\" "
                + "stArea:h=\"\(box.height)\" stArea:unit=\"normalized\"/></rdf:li>"
        }.joined()
        let peopleXML = photo.faces.isEmpty ? "" : """
            <Iptc4xmpExt:PersonInImage><rdf:Bag>\(names)</rdf:Bag></Iptc4xmpExt:PersonInImage>
            <mwg-rs:Regions rdf:parseType="Resource"><mwg-rs:RegionList><rdf:Bag>\(regions)</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions>
            """
        let sublocation = photo.sublocation.map { " Iptc4xmpCore:Location=\"\(escaped($0))\"" } ?? ""
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
             xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
             xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/" xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#"
             exif:DateTimeOriginal="\(photo.taken)" photoshop:City="\(escaped(photo.city))" photoshop:Country="\(escaped(photo.country))"\(sublocation)>
            \(peopleXML)
            </rdf:Description></rdf:RDF></x:xmpmeta>
            \(String(repeating: " ", count: 1024))
            <?xpacket end="w"?>
            """
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
