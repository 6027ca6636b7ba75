/// One record of a trailer after the image data (FotoStation, AFCP), as a write's verification
/// compares it: what identifies it, its data, and whether that data is an IPTC-IIM block.
struct TrailerRecord {
    var id: String
    var data: [UInt8]
    var isIIM: Bool
}
