/// The FotoWare FotoStation trailer some JPEGs carry after their end-of-image marker. It is
/// read backwards from the end of the file: each record is its data followed by a 10-byte
/// footer (big-endian record type u16, size u32 counting data and footer, signature
/// 0xA1B2C3D4). Type 1 holds an IPTC-IIM block (exiftool's `IPTC2` group), type 2 soft-edit
/// settings, types 3 and 4 a thumbnail and a preview.
struct FotoStationTrailer: Equatable {
    /// One record.
    struct Record: Equatable {
        var type: UInt16
        var data: [UInt8]
    }

    static let signature: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
    /// The record type of an IPTC-IIM block.
    static let iptcType: UInt16 = 1

    /// The records in file order.
    var records: [Record]

    /// The trailer that ends `bytes`, and the index where it starts; nil when the last ten
    /// bytes are not a FotoStation footer or a record does not fit.
    static func find(in bytes: ArraySlice<UInt8>) -> (start: Int, trailer: FotoStationTrailer)? {
        var records: [Record] = []
        var end = bytes.endIndex
        while end - bytes.startIndex >= 10, bytes[(end - 4)..<end].elementsEqual(signature) {
            let type = UInt16(bytes[end - 10]) << 8 | UInt16(bytes[end - 9])
            let size = bytes[(end - 8)..<(end - 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 10, size <= end - bytes.startIndex else { break }
            records.append(Record(type: type, data: Array(bytes[(end - size)..<(end - 10)])))
            end -= size
        }
        guard !records.isEmpty else { return nil }
        return (end, FotoStationTrailer(records: records.reversed()))
    }

    /// The trailer as stored.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        for record in records {
            let size = UInt32(record.data.count + 10)
            let footer: [UInt8] = [UInt8(record.type >> 8), UInt8(record.type & 0xFF),
                                   UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            output += record.data
            output += footer
            output += Self.signature
        }
        return output
    }

    /// The IPTC-IIM blocks it holds.
    var iimBlocks: [[UInt8]] { records.filter { $0.type == Self.iptcType }.map(\.data) }

    /// Its records as the verification compares them.
    var comparableRecords: [TrailerRecord] {
        records.map { TrailerRecord(id: "record \($0.type)", data: $0.data, isIIM: $0.type == Self.iptcType) }
    }
}
