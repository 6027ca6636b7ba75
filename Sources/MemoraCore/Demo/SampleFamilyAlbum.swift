import Foundation
internal import MemoraSystem
import ImageKit
import MetadataKit

/// The demo's family album: photos across nine years, each with the metadata a phone or a photo
/// manager leaves in the file (XMP: the date taken with its offset, the city and country, the
/// people in it and their face regions, MWG), so that the index, its people and places, the
/// collages by year, place and person and the basic description have something to work on.
/// The pixels are synthetic (made with the real JPEG encoder); the faces exist only as regions.
public enum SampleFamilyAlbum {
    /// A person's face in a photo: a box in normalised coordinates of the upright photo, top-left origin.
    public struct Face: Sendable, Hashable {
        public var name: String
        public var x, y, width, height: Double
    }

    /// One photo of the album.
    public struct Photo: Sendable, Hashable {
        /// The file name.
        public var name: String
        /// When it was taken, in its own time zone (`2019-07-14T16:20:00+02:00`).
        public var taken: String
        /// The city and country.
        public var city: String, country: String
        /// The place within the city, when named.
        public var sublocation: String?
        /// The people in it.
        public var faces: [Face]
    }

    /// The people of the album.
    public static let people = ["Ana", "Ben", "Grandma Rosa"]

    /// The album: three photos a year from 2017 to 2025 in four places. Ana's face is large
    /// (over 15% of the photo) in a dozen of them, so a collage of her has enough photos.
    public static var photos: [Photo] {
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

    /// Writes the album into `folder` (created if needed) and returns the file names.
    public static func generate(in folder: String, width: Int = 1600, height: Int = 1200) throws -> [String] {
        try FileSystem.makeFolder(folder)
        var names: [String] = []
        for (index, photo) in photos.enumerated() {
            let pixels = try SyntheticPhoto.landscape(width: width, height: height, seed: UInt64(100 + index))
            let jpeg = try ImageEncoder.encode(pixels, as: .jpeg())
            let path = folder + "/" + photo.name
            try AtomicFileWriter.write(try SampleXMP.embedding(packet(for: photo), inJPEG: jpeg, source: path), to: path)
            names.append(photo.name)
        }
        return names
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
