internal import CQREncode

/// A QR code (libqrencode, error correction level M) as a square of modules, for the hub's pairing
/// code: drawn in the terminal by `memora-server pair` and as SVG on the dashboard.
public struct QRCode: Sendable, Hashable {
    /// Modules per side.
    public let size: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]

    /// Encodes `text` (UTF-8, 8-bit mode); nil when it is too long for a QR code.
    public init?(_ text: String) {
        guard let code = text.withCString({ QRcode_encodeString8bit($0, 0, QR_ECLEVEL_M) }) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark (false outside the code: its quiet zone).
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// The code for a terminal: two rows per line with half blocks, dark on light, with a quiet zone of 2.
    public var terminalText: String {
        var lines: [String] = []
        for row in stride(from: -2, to: size + 2, by: 2) {
            var line = ""
            for column in -2..<(size + 2) {
                switch (isDark(row: row, column: column), isDark(row: row + 1, column: column)) {
                case (false, false): line += "\u{2588}"
                case (true, false): line += "\u{2584}"
                case (false, true): line += "\u{2580}"
                case (true, true): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The code as an SVG image (one path, a quiet zone of 4), `title` as its accessible name.
    public func svg(title: String) -> String {
        var path = ""
        for row in 0..<size {
            for column in 0..<size where isDark(row: row, column: column) { path += "M\(column + 4) \(row + 4)h1v1h-1z" }
        }
        let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let side = size + 8
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" role="img" aria-labelledby="qr-title" shape-rendering="crispEdges">\
            <title id="qr-title">\(escaped)</title><rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
