/// Photoshop image resource blocks (`8BIM` resources, as stored in a JPEG APP13
/// segment), parsed and rebuilt byte for byte.
struct PhotoshopResources {
    /// One resource.
    struct Resource {
        var signature: [UInt8]
        var id: UInt16
        /// The Pascal-string name with its length byte and padding, exactly as stored.
        var rawName: [UInt8]
        var data: [UInt8]
    }

    /// The IPTC-NAA record (IIM).
    static let iptcID: UInt16 = 0x0404
    /// The MD5 of the IIM block at the time Photoshop last synchronised it with XMP.
    static let iptcDigestID: UInt16 = 0x0425

    var resources: [Resource]

    init(resources: [Resource] = []) {
        self.resources = resources
    }

    /// Parses resource blocks; fails on a truncated or unsigned block.
    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        var resources: [Resource] = []
        var offset = 0
        while offset < bytes.count {
            // Some writers pad the end with zeros.
            if bytes[offset...].allSatisfy({ $0 == 0 }) { break }
            guard offset + 7 <= bytes.count else { throw .corrupt(source: source, reason: "a Photoshop resource header is cut off") }
            let signature = Array(bytes[offset..<(offset + 4)])
            guard signature == Array("8BIM".utf8) || signature == Array("PHUT".utf8) || signature == Array("AgHg".utf8)
                || signature == Array("DCSR".utf8) else {
                throw .corrupt(source: source, reason: "a Photoshop resource has no 8BIM signature")
            }
            let id = UInt16(bytes[offset + 4]) << 8 | UInt16(bytes[offset + 5])
            let nameLength = Int(bytes[offset + 6])
            let nameTotal = (1 + nameLength + 1) & ~1
            let sizeOffset = offset + 6 + nameTotal
            guard sizeOffset + 4 <= bytes.count else { throw .corrupt(source: source, reason: "a Photoshop resource name is cut off") }
            let size = Int(bytes[sizeOffset]) << 24 | Int(bytes[sizeOffset + 1]) << 16 | Int(bytes[sizeOffset + 2]) << 8 | Int(bytes[sizeOffset + 3])
            let dataOffset = sizeOffset + 4
            guard size >= 0, dataOffset + size <= bytes.count else { throw .corrupt(source: source, reason: "a Photoshop resource runs past its segment") }
            resources.append(Resource(
                signature: signature, id: id, rawName: Array(bytes[(offset + 6)..<sizeOffset]),
                data: Array(bytes[dataOffset..<(dataOffset + size)])))
            offset = dataOffset + size + (size % 2)
        }
        self.resources = resources
    }

    /// The resources as stored.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        for resource in resources {
            output += resource.signature + [UInt8(resource.id >> 8), UInt8(resource.id & 0xFF)] + resource.rawName
            let size = resource.data.count
            output += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            output += resource.data
            if size % 2 == 1 { output.append(0) }
        }
        return output
    }

    /// The data of the first resource with `id`.
    func data(id: UInt16) -> [UInt8]? {
        resources.first { $0.id == id && $0.signature == Array("8BIM".utf8) }?.data
    }

    /// The indices of every resource with `id` (a file can carry more than one IPTC record).
    func indices(id: UInt16) -> [Int] {
        resources.indices.filter { resources[$0].id == id && resources[$0].signature == Array("8BIM".utf8) }
    }

    /// Replaces the data of the first resource with `id`, or appends a new resource.
    mutating func setData(_ data: [UInt8], id: UInt16) {
        if let index = resources.firstIndex(where: { $0.id == id && $0.signature == Array("8BIM".utf8) }) {
            resources[index].data = data
        } else {
            resources.append(Resource(signature: Array("8BIM".utf8), id: id, rawName: [0, 0], data: data))
        }
    }
}

/// IPTC-IIM datasets (record:dataset = value), parsed and rebuilt in their stored order.
struct IPTCRecord {
    /// One dataset.
    struct DataSet {
        var record: UInt8
        var number: UInt8
        var value: [UInt8]
    }

    /// `ESC % G`: the 1:90 value that declares UTF-8.
    static let utf8Marker: [UInt8] = [0x1B, 0x25, 0x47]

    var dataSets: [DataSet]
    /// Bytes after the last dataset (usually zero padding), kept as they were: some readers need them.
    var trailing: [UInt8] = []

    init(dataSets: [DataSet] = []) {
        self.dataSets = dataSets
    }

    init(_ bytes: [UInt8], source: String) throws(MetadataError) {
        var dataSets: [DataSet] = []
        var offset = 0
        while offset < bytes.count {
            if bytes[offset] != 0x1C {
                // Trailing padding after the last dataset is common; anything else is damage.
                if bytes[offset...].allSatisfy({ $0 == 0 }) {
                    trailing = Array(bytes[offset...])
                    break
                }
                throw .corrupt(source: source, reason: "the IPTC block has a damaged dataset at byte \(offset)")
            }
            guard offset + 5 <= bytes.count else { throw .corrupt(source: source, reason: "an IPTC dataset header is cut off") }
            var length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            var valueOffset = offset + 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low 15 bits give how many bytes hold the length.
                let lengthBytes = length & 0x7FFF
                guard lengthBytes <= 4, valueOffset + lengthBytes <= bytes.count else {
                    throw .corrupt(source: source, reason: "an IPTC dataset has an invalid extended length")
                }
                length = bytes[valueOffset..<(valueOffset + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                valueOffset += lengthBytes
            }
            guard valueOffset + length <= bytes.count else { throw .corrupt(source: source, reason: "an IPTC dataset runs past its block") }
            dataSets.append(DataSet(record: bytes[offset + 1], number: bytes[offset + 2], value: Array(bytes[valueOffset..<(valueOffset + length)])))
            offset = valueOffset + length
        }
        self.dataSets = dataSets
    }

    var bytes: [UInt8] {
        var output: [UInt8] = []
        for dataSet in dataSets {
            output += [0x1C, dataSet.record, dataSet.number]
            let length = dataSet.value.count
            if length < 0x8000 {
                output += [UInt8(length >> 8), UInt8(length & 0xFF)]
            } else {
                output += [0x80, 0x04, UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            }
            output += dataSet.value
        }
        return output + trailing
    }

    /// The record split into envelopes: a record-1 dataset after record-2 datasets starts a
    /// new one (exiftool shows them as IPTC, IPTC2...). Each has its own character set.
    var envelopes: [IPTCRecord] {
        var result: [IPTCRecord] = []
        var current: [DataSet] = []
        for dataSet in dataSets {
            if dataSet.record == 1, current.contains(where: { $0.record >= 2 }) {
                result.append(IPTCRecord(dataSets: current))
                current = []
            }
            current.append(dataSet)
        }
        result.append(IPTCRecord(dataSets: current))
        result[result.count - 1].trailing = trailing
        return result
    }

    /// Envelopes joined back into one record.
    init(joining envelopes: [IPTCRecord]) {
        dataSets = envelopes.flatMap(\.dataSets)
        trailing = envelopes.last?.trailing ?? []
    }

    /// Whether 1:90 declares UTF-8.
    var declaresUTF8: Bool {
        dataSets.contains { $0.record == 1 && $0.number == 90 && $0.value == Self.utf8Marker }
    }

    /// The values of `record:number`, decoded with the record's character set.
    func strings(record: UInt8, number: UInt8) -> [String] {
        let utf8 = declaresUTF8
        return dataSets.filter { $0.record == record && $0.number == number }.map {
            TextEncodings.decodeIPTCText($0.value, declaredUTF8: utf8)
        }
    }

    /// Whether a record-2 dataset holds text (and so may need transcoding).
    static func isText(record: UInt8, number: UInt8) -> Bool {
        record == 2 && number != 0 && number != 125 && !(150...154).contains(number) && number < 200
    }

    /// `text` in ISO 8859-1 when the record declares that set (1:90 `ESC - A` or `ESC . A`) and
    /// every character fits (no C1 controls) and reads back the same; nil otherwise.
    func latin1Encoded(_ text: String) -> [UInt8]? {
        guard let declared = dataSets.first(where: { $0.record == 1 && $0.number == 90 })?.value,
              declared == [0x1B, 0x2D, 0x41] || declared == [0x1B, 0x2E, 0x41] else { return nil }
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value < 0x80 || (0xA0...0xFF).contains(scalar.value) else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        // Bytes that happen to form valid UTF-8 would be read as UTF-8 by readers that guess.
        return TextEncodings.decodeIPTCText(bytes, declaredUTF8: false) == text ? bytes : nil
    }

    /// Declares UTF-8 (1:90), first re-encoding every text dataset that is not already
    /// valid UTF-8 from Windows-1252: adding the marker alone would corrupt them.
    mutating func convertToUTF8() throws(MetadataError) {
        guard !declaresUTF8 else { return }
        // Only Windows-1252/Latin-1 (undeclared, or ESC - A / ESC . A) can be re-encoded safely;
        // text under another declared set (ISO 2022: JIS, KS, GB...) would be garbled.
        if let declared = dataSets.first(where: { $0.record == 1 && $0.number == 90 })?.value,
           declared != [0x1B, 0x2D, 0x41], declared != [0x1B, 0x2E, 0x41],
           dataSets.contains(where: { Self.isText(record: $0.record, number: $0.number) && $0.value.contains { $0 >= 0x80 || $0 == 0x1B } }) {
            throw .unsupportedFormat(source: "IPTC", reason: "its IPTC text uses a declared character set other than Latin-1 or UTF-8, which cannot be converted without garbling it")
        }
        for index in dataSets.indices where Self.isText(record: dataSets[index].record, number: dataSets[index].number) {
            let value = dataSets[index].value
            if !TextEncodings.isValidUTF8(value) {
                dataSets[index].value = Array(TextEncodings.windows1252Decode(value).utf8)
            }
        }
        dataSets.removeAll { $0.record == 1 && $0.number == 90 }
        let position = dataSets.lastIndex { $0.record == 1 }.map { $0 + 1 } ?? 0
        dataSets.insert(DataSet(record: 1, number: 90, value: Self.utf8Marker), at: position)
    }

    /// Sets every `record:number` dataset to `value` (adding one when there is none), or removes them all when nil.
    mutating func set(record: UInt8, number: UInt8, value: [UInt8]?) {
        guard let value else {
            dataSets.removeAll { $0.record == record && $0.number == number }
            return
        }
        var found = false
        for index in dataSets.indices where dataSets[index].record == record && dataSets[index].number == number {
            dataSets[index].value = value
            found = true
        }
        guard !found else { return }
        if record == 2 && !dataSets.contains(where: { $0.record == 2 && $0.number == 0 }) {
            let position = dataSets.lastIndex { $0.record < 2 }.map { $0 + 1 } ?? 0
            dataSets.insert(DataSet(record: 2, number: 0, value: [0x00, 0x04]), at: position)
        }
        // After the datasets of lower numbers in the same record, keeping the usual order.
        let position = dataSets.lastIndex { $0.record < record || ($0.record == record && $0.number <= number) }.map { $0 + 1 } ?? dataSets.count
        dataSets.insert(DataSet(record: record, number: number, value: value), at: position)
    }
}
