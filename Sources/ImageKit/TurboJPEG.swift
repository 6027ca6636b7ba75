// The one file that imports CTurboJPEG: it turns libturbojpeg's handles and
// buffers into `Image` values and `ImageError`s.
internal import CTurboJPEG

/// What a JPEG header says before any pixel is decoded.
struct JPEGHeader: Sendable, Hashable {
    var width: Int
    var height: Int
    /// The JPEG colour space: gray, YCbCr/RGB, or CMYK/YCCK.
    var isCMYK: Bool
    var isGrayscale: Bool
    var progressive: Bool
}

/// Thin Swift wrapper over libturbojpeg's decompress and compress calls.
enum TurboJPEG {
    /// Reads the frame header: size and colour space.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, source: String) throws(ImageError) -> JPEGHeader {
        let handle = try makeDecompressor(source: source)
        defer { tjDestroy(handle) }
        return try readHeader(bytes, source: source, handle: handle)
    }

    private static func makeDecompressor(source: String) throws(ImageError) -> tjhandle {
        guard let handle = tjInitDecompress() else {
            throw .corrupt(source: source, detail: "libturbojpeg could not start a decoder")
        }
        return handle
    }

    private static func readHeader(_ bytes: UnsafeRawBufferPointer, source: String, handle: tjhandle) throws(ImageError) -> JPEGHeader {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = tjDecompressHeader3(
            handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
            &width, &height, &subsampling, &colorspace)
        if status != 0 {
            throw decodingError(handle, source: source)
        }
        guard width > 0, height > 0 else {
            throw .corrupt(source: source, detail: "the JPEG frame has a zero size")
        }
        return JPEGHeader(
            width: Int(width), height: Int(height),
            isCMYK: colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue),
            isGrayscale: colorspace == Int32(TJCS_GRAY.rawValue),
            progressive: isProgressive(bytes))
    }

    /// Decodes to RGB at `scale`, refusing images over `maxPixelCount` (counted at full size,
    /// because a progressive JPEG needs full-size coefficient buffers whatever the scale).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, source: String, scale: JPEGScale, maxPixelCount: Int, fast: Bool
    ) throws(ImageError) -> Image {
        let handle = try makeDecompressor(source: source)
        defer { tjDestroy(handle) }
        let header = try readHeader(bytes, source: source, handle: handle)
        guard header.width * header.height <= maxPixelCount else {
            throw .tooLarge(source: source, width: header.width, height: header.height, limit: maxPixelCount)
        }
        let width = scale.scaled(header.width)
        let height = scale.scaled(header.height)
        let pixelFormat = header.isCMYK ? TJPF_CMYK : TJPF_RGB
        let channels = header.isCMYK ? 4 : 3
        let flags = fast ? (TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE) : 0
        var failure: ImageError?
        var decoded = [UInt8](unsafeUninitializedCapacity: width * height * channels) { buffer, count in
            let status = tjDecompress2(
                handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                buffer.baseAddress, Int32(width), 0, Int32(height), Int32(pixelFormat.rawValue), Int32(flags))
            if status != 0 {
                failure = decodingError(handle, source: source, allowWarnings: true)
            }
            count = failure == nil ? buffer.count : 0
        }
        if let failure { throw failure }
        if header.isCMYK { decoded = invertedCMYKToRGB(decoded) }
        return Image(uncheckedWidth: width, height: height, pixelFormat: .rgb8, pixels: decoded)
    }

    /// Encodes `image` as a JPEG with no metadata segments beyond JFIF/Adobe.
    static func encode(_ image: Image, options: JPEGEncodingOptions) throws(ImageError) -> [UInt8] {
        guard let handle = tjInitCompress() else {
            throw .encodingFailed(format: .jpeg, detail: "libturbojpeg could not start an encoder")
        }
        defer { tjDestroy(handle) }
        let rgb = image.converted(to: .rgb8, background: options.background)
        var source = rgb.pixels
        var pixelFormat = TJPF_RGB
        var subsampling: TJSAMP
        switch options.colorModel {
        case .grayscale:
            subsampling = TJSAMP_GRAY
        case .cmyk:
            source = rgbToInvertedCMYK(rgb.pixels)
            pixelFormat = TJPF_CMYK
            subsampling = TJSAMP_444
        case .color:
            switch options.chromaSubsampling {
            case .none444: subsampling = TJSAMP_444
            case .half422: subsampling = TJSAMP_422
            case .quarter420: subsampling = TJSAMP_420
            }
        }
        var flags = TJFLAG_ACCURATEDCT
        if options.progressive { flags |= TJFLAG_PROGRESSIVE }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = source.withUnsafeBufferPointer { pixels in
            tjCompress2(
                handle, pixels.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(pixelFormat.rawValue),
                &output, &size, Int32(subsampling.rawValue), options.libjpegQuality, Int32(flags))
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else {
            throw .encodingFailed(format: .jpeg, detail: String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Turns libturbojpeg's last error into an `ImageError`, or nil for a harmless warning.
    private static func decodingError(_ handle: tjhandle, source: String, allowWarnings: Bool = false) -> ImageError? {
        let message = String(cString: tjGetErrorStr2(handle))
        let lowered = message.lowercased()
        if lowered.contains("premature end") || lowered.contains("ran out of input") {
            return .truncated(source: source, detail: message)
        }
        // Warnings such as "Corrupt JPEG data: N extraneous bytes before marker"
        // are common in camera files that every viewer shows correctly.
        if allowWarnings && tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) { return nil }
        return .corrupt(source: source, detail: message)
    }

    /// Throwing form of `decodingError` for header reads, which never tolerate warnings.
    private static func decodingError(_ handle: tjhandle, source: String) -> ImageError {
        decodingError(handle, source: source, allowWarnings: false) ?? .corrupt(source: source, detail: "unknown error")
    }

    /// Whether the first frame marker is SOF2 (progressive, Huffman).
    private static func isProgressive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                return marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            offset += 2 + length
        }
        return false
    }
}

/// Adobe CMYK JPEGs store inverted values (255 = no ink): R = C·K/255, and so on.
private func invertedCMYKToRGB(_ cmyk: [UInt8]) -> [UInt8] {
    let pixelCount = cmyk.count / 4
    return [UInt8](unsafeUninitializedCapacity: pixelCount * 3) { rgb, count in
        cmyk.withUnsafeBufferPointer { source in
            for index in 0..<pixelCount {
                let k = UInt32(source[index * 4 + 3])
                for channel in 0..<3 {
                    rgb[index * 3 + channel] = UInt8((UInt32(source[index * 4 + channel]) * k + 127) / 255)
                }
            }
        }
        count = pixelCount * 3
    }
}

/// The inverse of `invertedCMYKToRGB`: K carries the brightest channel, C/M/Y the hue.
private func rgbToInvertedCMYK(_ rgb: [UInt8]) -> [UInt8] {
    let pixelCount = rgb.count / 3
    return [UInt8](unsafeUninitializedCapacity: pixelCount * 4) { cmyk, count in
        rgb.withUnsafeBufferPointer { source in
            for index in 0..<pixelCount {
                let r = UInt32(source[index * 3]), g = UInt32(source[index * 3 + 1]), b = UInt32(source[index * 3 + 2])
                let k = max(r, g, b)
                for (channel, value) in [r, g, b].enumerated() {
                    cmyk[index * 4 + channel] = k == 0 ? 255 : UInt8((value * 255 + k / 2) / k)
                }
                cmyk[index * 4 + 3] = UInt8(k)
            }
        }
        count = pixelCount * 4
    }
}
