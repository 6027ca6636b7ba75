import Foundation
public import MemoraSystem

/// Reads captions, alt text and the other fields PhotoIndex needs, from any
/// format libexiv2 reads (JPEG, TIFF, DNG, PNG, WebP, HEIC, AVIF...).
public enum MetadataReader {
    /// Reads the metadata of the file at `path`.
    public static func read(contentsOf path: String) throws(MetadataError) -> PhotoMetadata {
        if let reading = readThroughWindow(path) { return reading }
        let bytes = try FileAccess.read(path)
        return try read(bytes, source: path)
    }

    /// The metadata of a TIFF or DNG read through a window (``TIFFWindow``: its strips and tiles are
    /// never read); nil for other files, or when the window cannot be used.
    static func readThroughWindow(_ path: String) -> PhotoMetadata? {
        guard let window = try? TIFFWindow.open(path),
              let (mimeType, tags) = try? Exiv2.readTags(memory: UnsafeRawBufferPointer(window.memory.bytes), source: path) else { return nil }
        return interpret(tags, mimeType: mimeType, iptcDigestMatches: nil, pixelSize: nil)
    }

    /// Reads the metadata of a file held in memory; `source` names it in errors.
    public static func read(_ bytes: [UInt8], source: String = "image") throws(MetadataError) -> PhotoMetadata {
        guard !bytes.isEmpty else { throw .unreadable(source: source, reason: "the file is empty") }
        let (mimeType, tags) = try MetadataTagReader.read(bytes, source: source)
        let jpeg = MetadataContainer(bytes) == .jpeg ? try? JPEGFile(bytes, source: source) : nil
        let size = jpeg.map(ContainerPixelSize.jpeg) ?? ContainerPixelSize.of(bytes, source: source)
        return interpret(tags, mimeType: mimeType, iptcDigestMatches: jpeg.flatMap { iptcDigestMatches($0, source: source) }, pixelSize: size)
    }

    /// A TIFF's size: from the first of IFD0 and its sub-IFDs (`Exif.SubImage1`, …) that is not
    /// marked a reduced-resolution image by NewSubfileType (a DNG's IFD0 is usually its preview).
    static func tiffSize(_ fields: TagIndex, mimeType: String) -> (width: Int, height: Int)? {
        guard mimeType == "image/tiff" || mimeType == "image/x-adobe-dng" else { return nil }
        for group in ["Exif.Image"] + (1...9).map({ "Exif.SubImage\($0)" }) {
            guard let width = fields.first(group + ".ImageWidth").flatMap({ Int($0.value) }),
                  let height = fields.first(group + ".ImageLength").flatMap({ Int($0.value) }), width > 0, height > 0 else { continue }
            if (fields.first(group + ".NewSubfileType").flatMap { Int($0.value) } ?? 0) & 1 == 0 { return (width, height) }
        }
        return nil
    }

    /// Whether a JPEG's stored IPTCDigest matches its IPTC block (MWG trusts XMP over IPTC only
    /// then); nil when there is no digest.
    static func iptcDigestMatches(_ jpeg: JPEGFile, source: String) -> Bool? {
        guard let resources = jpeg.photoshopResources, let parsed = try? PhotoshopResources(resources, source: source),
              let stored = parsed.data(id: PhotoshopResources.iptcDigestID), let iim = parsed.data(id: PhotoshopResources.iptcID) else { return nil }
        return MD5.digest(iim) == stored
    }

    /// Builds the reading from libexiv2's tags; `pixelSize` is the one the file's structure
    /// declares (``ContainerPixelSize``), which wins over EXIF's copy.
    static func interpret(_ tags: [MetadataTag], mimeType: String, iptcDigestMatches: Bool?, pixelSize: (width: Int, height: Int)? = nil) -> PhotoMetadata {
        let fields = TagIndex(tags)
        let size = pixelSize ?? tiffSize(fields, mimeType: mimeType)
        let iptcUTF8 = fields.first("Iptc.Envelope.CharacterSet")?.rawBytes == IPTCRecord.utf8Marker

        let xmp = fields.languageAlternative("Xmp.dc.description")
        let exif = fields.first("Exif.Image.ImageDescription").map { exifText($0.rawBytes) }
        let iptc = fields.first("Iptc.Application2.Caption").map { TextEncodings.decodeIPTCText($0.rawBytes, declaredUTF8: iptcUTF8) }

        var boilerplate: [CaptionSource: String] = [:]
        func usable(_ value: String?, _ source: CaptionSource) -> String? {
            guard let value else { return nil }
            if CameraBoilerplate.isBoilerplate(value) {
                boilerplate[source] = value
                return nil
            }
            return value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let candidates: [(CaptionSource, String?)] = [(.xmp, usable(xmp, .xmp)), (.exif, usable(exif, .exif)), (.iptc, usable(iptc, .iptc))]
        let chosen = candidates.first { $0.1 != nil }
        let present = candidates.compactMap(\.1)

        // MWG: a non-blank EXIF value first; then XMP, unless the IPTC digest says the IPTC is newer.
        let mwg: CaptionSource?
        if usable(exif, .exif) != nil {
            mwg = .exif
        } else if usable(iptc, .iptc) != nil, iptcDigestMatches == false {
            mwg = .iptc
        } else if usable(xmp, .xmp) != nil {
            mwg = .xmp
        } else {
            mwg = usable(iptc, .iptc) != nil ? .iptc : nil
        }

        let captions = CaptionReading(
            caption: chosen?.1, source: chosen?.0, xmp: xmp, exif: exif, iptc: iptc, boilerplate: boilerplate,
            mwgSource: mwg, copiesDisagree: Set(present).count > 1,
            altText: fields.languageAlternative("Xmp.iptc.AltTextAccessibility") ?? fields.languageAlternative("Xmp.Iptc4xmpCore.AltTextAccessibility"),
            extendedDescription: fields.languageAlternative("Xmp.iptc.ExtDescrAccessibility") ?? fields.languageAlternative("Xmp.Iptc4xmpCore.ExtDescrAccessibility"),
            basicDescription: fields.first(CaptionWriter.basicDescriptionKey)?.value,
            captionSource: fields.first(CaptionWriter.captionSourceKey)?.value)

        let windowsTitle = fields.first("Exif.Image.XPTitle").map { TextEncodings.decodeUCS2LE($0.rawBytes) }
        let iptcKeywords = fields.all("Iptc.Application2.Keywords").map { TextEncodings.decodeIPTCText($0.rawBytes, declaredUTF8: iptcUTF8) }
        let xmpKeywords = fields.all("Xmp.dc.subject").map(\.value)
        let xpKeywords = fields.first("Exif.Image.XPKeywords").map { TextEncodings.decodeUCS2LE($0.rawBytes) }?
            .split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        let regions = faceRegions(fields)
        var people: [String] = []
        for name in fields.all("Xmp.iptcExt.PersonInImage").map(\.value) + regions.compactMap(\.name) where !people.contains(name) {
            people.append(name)
        }

        return PhotoMetadata(
            mimeType: mimeType, captions: captions,
            title: fields.languageAlternative("Xmp.dc.title")
                ?? fields.first("Iptc.Application2.ObjectName").map { TextEncodings.decodeIPTCText($0.rawBytes, declaredUTF8: iptcUTF8) }
                ?? windowsTitle,
            keywords: !xmpKeywords.isEmpty ? xmpKeywords : (!iptcKeywords.isEmpty ? iptcKeywords : xpKeywords),
            dateTaken: dateTaken(fields), gps: gps(fields),
            orientation: fields.first("Exif.Image.Orientation").flatMap { Int($0.value) },
            pixelWidth: size?.width ?? fields.first("Exif.Photo.PixelXDimension").flatMap { Int($0.value) },
            pixelHeight: size?.height ?? fields.first("Exif.Photo.PixelYDimension").flatMap { Int($0.value) },
            make: fields.first("Exif.Image.Make").map { exifText($0.rawBytes) },
            model: fields.first("Exif.Image.Model").map { exifText($0.rawBytes) },
            rating: fields.first("Xmp.xmp.Rating").flatMap { Int($0.value) ?? Double($0.value).map { Int($0) } },
            windowsComment: fields.first("Exif.Image.XPComment").map { TextEncodings.decodeUCS2LE($0.rawBytes) },
            windowsTitle: windowsTitle, people: people, regions: regions, place: place(fields, iptcUTF8: iptcUTF8),
            userComment: userComment(fields))
    }

    /// EXIF `UserComment`, else XMP `exif:UserComment`, trimmed; nil when both are empty or absent.
    static func userComment(_ fields: TagIndex) -> String? {
        let exif = fields.first("Exif.Photo.UserComment").flatMap { userComment(exif: $0.rawBytes) }
        let text = (exif?.isEmpty == false ? exif : nil) ?? fields.languageAlternative("Xmp.exif.UserComment")
        let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed?.isEmpty == false ? trimmed : nil
    }

    /// The text of an EXIF `UserComment`: an 8-byte character code, then the text. ASCII and an
    /// undefined code are read as EXIF text is (UTF-8 or Windows-1252), `UNICODE` as UCS-2 in the
    /// order its bytes show (EXIF gives no mark); nil for JIS, which is not read, and for a value
    /// too short to hold the code.
    static func userComment(exif raw: [UInt8]) -> String? {
        guard raw.count >= 8 else { return nil }
        let code = raw.prefix(8), text = Array(raw.dropFirst(8))
        if code.elementsEqual(Array("UNICODE".utf8) + [0]) {
            // UCS-2 of mostly Latin text has its zero bytes first (big-endian) or second (little-endian).
            let bigEndian = text.count >= 2 && text[0] == 0 && text[1] != 0
            var units: [UInt16] = []
            for index in stride(from: 0, to: text.count - 1, by: 2) {
                let (high, low) = bigEndian ? (text[index], text[index + 1]) : (text[index + 1], text[index])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            return String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        }
        if code.elementsEqual(Array("ASCII".utf8) + [0, 0, 0]) || code.allSatisfy({ $0 == 0 }) { return exifText(text) }
        return nil
    }

    /// IPTC Core location names, XMP first, then the IIM datasets.
    private static func place(_ fields: TagIndex, iptcUTF8: Bool) -> PlaceName? {
        func text(_ xmpKey: String, _ iptcKey: String) -> String? {
            let value = fields.first(xmpKey)?.value
                ?? fields.first(iptcKey).map { TextEncodings.decodeIPTCText($0.rawBytes, declaredUTF8: iptcUTF8) }
            let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed?.isEmpty == false ? trimmed : nil
        }
        let place = PlaceName(
            sublocation: text("Xmp.iptc.Location", "Iptc.Application2.SubLocation"),
            city: text("Xmp.photoshop.City", "Iptc.Application2.City"),
            state: text("Xmp.photoshop.State", "Iptc.Application2.ProvinceState"),
            country: text("Xmp.photoshop.Country", "Iptc.Application2.CountryName"))
        return place.displayName.isEmpty ? nil : place
    }

    /// EXIF ASCII text: UTF-8 when the bytes are valid UTF-8 (many phones write it), else
    /// Windows-1252; trailing NULs and spaces removed.
    static func exifText(_ bytes: [UInt8]) -> String {
        var trimmed = bytes
        while let last = trimmed.last, last == 0 || last == 0x20 { trimmed.removeLast() }
        if let first = trimmed.firstIndex(of: 0) { trimmed = Array(trimmed[..<first]) }
        return TextEncodings.decodeIPTCText(trimmed, declaredUTF8: false)
    }

    private static func dateTaken(_ fields: TagIndex) -> CaptureDate? {
        if let original = fields.first("Exif.Photo.DateTimeOriginal")?.value,
           let date = parseEXIFDate(original, offset: fields.first("Exif.Photo.OffsetTimeOriginal")?.value) {
            return CaptureDate(date: date.0, utcOffsetSeconds: date.1, source: "Exif.Photo.DateTimeOriginal")
        }
        for key in ["Xmp.exif.DateTimeOriginal", "Xmp.photoshop.DateCreated", "Xmp.xmp.CreateDate"] {
            if let text = fields.first(key)?.value, let date = parseISODate(text) {
                return CaptureDate(date: date.0, utcOffsetSeconds: date.1, source: key)
            }
        }
        if let day = fields.first("Iptc.Application2.DateCreated")?.value {
            let time = fields.first("Iptc.Application2.TimeCreated")?.value ?? "00:00:00"
            if let date = parseISODate(day + "T" + time) {
                return CaptureDate(date: date.0, utcOffsetSeconds: date.1, source: "Iptc.Application2.DateCreated")
            }
        }
        return nil
    }

    /// "YYYY:MM:DD HH:MM:SS" with an optional "+HH:MM" offset.
    static func parseEXIFDate(_ text: String, offset: String?) -> (Date, Int?)? {
        let digits = text.split(whereSeparator: { ":- T".contains($0) }).compactMap { Int($0) }
        guard digits.count >= 6, digits[0] > 1800 else { return nil }
        let utcOffset = offset.flatMap(parseOffset)
        var components = DateComponents(year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5])
        components.timeZone = TimeZone(secondsFromGMT: utcOffset ?? 0)
        guard let date = Calendar(identifier: .gregorian).date(from: components) else { return nil }
        return (date, utcOffset)
    }

    /// ISO 8601 as XMP and IPTC write it, with or without seconds and offset.
    static func parseISODate(_ text: String) -> (Date, Int?)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var offset: Int?
        var body = trimmed
        if trimmed.hasSuffix("Z") {
            offset = 0
            body = String(trimmed.dropLast())
        } else if let sign = trimmed.lastIndex(where: { $0 == "+" || $0 == "-" }), trimmed.distance(from: trimmed.startIndex, to: sign) > 10 {
            offset = parseOffset(String(trimmed[sign...]))
            body = String(trimmed[..<sign])
        }
        let parts = body.split(whereSeparator: { "-:T .".contains($0) }).compactMap { Int($0) }
        guard parts.count >= 3, parts[0] > 1800 else { return nil }
        var components = DateComponents(year: parts[0], month: parts[1], day: parts[2],
                                        hour: parts.count > 3 ? parts[3] : 0, minute: parts.count > 4 ? parts[4] : 0, second: parts.count > 5 ? parts[5] : 0)
        components.timeZone = TimeZone(secondsFromGMT: offset ?? 0)
        guard let date = Calendar(identifier: .gregorian).date(from: components) else { return nil }
        return (date, offset)
    }

    private static func parseOffset(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let sign = trimmed.first, sign == "+" || sign == "-" else { return nil }
        let numbers = trimmed.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard let hours = numbers.first else { return nil }
        let seconds = hours * 3600 + (numbers.count > 1 ? numbers[1] * 60 : 0)
        return sign == "-" ? -seconds : seconds
    }

    private static func gps(_ fields: TagIndex) -> GPSPosition? {
        func degrees(_ key: String) -> Double? {
            guard let value = fields.first(key)?.value else { return nil }
            let parts = value.split(separator: " ").map { part -> Double? in
                let fraction = part.split(separator: "/").compactMap { Double($0) }
                guard fraction.count == 2, fraction[1] != 0 else { return fraction.count == 1 ? fraction[0] : nil }
                return fraction[0] / fraction[1]
            }
            guard parts.count == 3, let d = parts[0], let m = parts[1], let s = parts[2] else { return nil }
            return d + m / 60 + s / 3600
        }
        guard var latitude = degrees("Exif.GPSInfo.GPSLatitude"), var longitude = degrees("Exif.GPSInfo.GPSLongitude") else { return nil }
        if fields.first("Exif.GPSInfo.GPSLatitudeRef")?.value.hasPrefix("S") == true { latitude = -latitude }
        if fields.first("Exif.GPSInfo.GPSLongitudeRef")?.value.hasPrefix("W") == true { longitude = -longitude }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        // Exactly 0, 0 (in the Gulf of Guinea) is what cameras write when they had no fix: not a position.
        guard latitude != 0 || longitude != 0 else { return nil }
        var altitude = fields.first("Exif.GPSInfo.GPSAltitude").flatMap { value -> Double? in
            let fraction = value.value.split(separator: "/").compactMap { Double($0) }
            return fraction.count == 2 && fraction[1] != 0 ? fraction[0] / fraction[1] : nil
        }
        if fields.first("Exif.GPSInfo.GPSAltitudeRef")?.value == "1", let value = altitude { altitude = -value }
        return GPSPosition(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// MWG regions: `Xmp.mwg-rs.Regions/mwg-rs:RegionList[N]/...`, areas given by their centre.
    private static func faceRegions(_ fields: TagIndex) -> [FaceRegion] {
        let prefix = "Xmp.mwg-rs.Regions/mwg-rs:RegionList["
        var byIndex: [Int: [String: String]] = [:]
        for tag in fields.tags where tag.key.hasPrefix(prefix) {
            let rest = tag.key.dropFirst(prefix.count)
            guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]) else { continue }
            let field = rest[rest.index(after: close)...].split(separator: "/").last.map { String($0.split(separator: ":").last ?? "") } ?? ""
            byIndex[index, default: [:]][field] = tag.value
        }
        return byIndex.keys.sorted().compactMap { index in
            let region = byIndex[index]!
            guard let x = region["x"].flatMap(Double.init), let y = region["y"].flatMap(Double.init),
                  let w = region["w"].flatMap(Double.init), let h = region["h"].flatMap(Double.init) else { return nil }
            let clamp: (Double) -> Double = { min(1, max(0, $0)) }
            return FaceRegion(name: region["Name"], type: region["Type"], x: clamp(x - w / 2), y: clamp(y - h / 2), width: clamp(w), height: clamp(h))
        }
    }
}

/// Tags by key, in stored order.
struct TagIndex {
    let tags: [MetadataTag]
    private let byKey: [String: [MetadataTag]]

    init(_ tags: [MetadataTag]) {
        self.tags = tags
        byKey = Dictionary(grouping: tags, by: \.key)
    }

    func first(_ key: String) -> MetadataTag? { byKey[key]?.first }
    func all(_ key: String) -> [MetadataTag] { byKey[key] ?? [] }

    /// The `x-default` item of a language alternative, else its first item.
    func languageAlternative(_ key: String) -> String? {
        let items = all(key)
        return (items.first { $0.language == "x-default" } ?? items.first)?.value
    }
}

extension MetadataReader {
    /// The captions of the photo's XMP sidecar (`photo.jpg.xmp`, else Lightroom's `photo.xmp`),
    /// when it has one; nil when it has none.
    public static func sidecarCaptions(for path: String) throws(MetadataError) -> SidecarCaptions? {
        let sidecar = CaptionWriter.sidecarPath(for: path)
        guard FileAccess.exists(sidecar) else { return nil }
        return SidecarCaptions(path: sidecar, captions: try read(try FileAccess.read(sidecar), source: sidecar).captions)
    }
}

/// The captions an XMP sidecar holds for a photo.
public struct SidecarCaptions: Sendable, Hashable, Codable {
    /// The sidecar file.
    public var path: String
    /// Its captions (XMP only).
    public var captions: CaptionReading
}
