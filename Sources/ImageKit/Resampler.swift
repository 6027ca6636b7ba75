/// The taps of a 1-D resampling: for each output sample, a first source index and weights.
struct ResamplingTaps {
    let tapsPerOutput: Int
    let starts: [Int]
    /// For each output sample, how many taps from `starts` carry weight (at least 1), within the source.
    let counts: [Int]
    let weights: [Float]

    /// Precomputes the weights to map `sourceLength` samples onto `targetLength`.
    init(sourceLength: Int, targetLength: Int, filter: ResamplingFilter) {
        let factor = Double(sourceLength) / Double(targetLength)
        let resolved = filter.resolved(factor: factor)
        let stretch = max(factor, 1)
        let support = resolved == .area ? max(factor, 1) / 2 : resolved.radius * stretch
        let taps = Int((support * 2).rounded(.up)) + 2
        var starts = [Int](repeating: 0, count: targetLength)
        var counts = [Int](repeating: 1, count: targetLength)
        var weights = [Float](repeating: 0, count: targetLength * taps)
        for index in 0..<targetLength {
            let center = (Double(index) + 0.5) * factor
            let first = max(0, Int((center - support).rounded(.down)))
            let last = min(sourceLength, Int((center + support).rounded(.up)))
            var row = [Double](repeating: 0, count: taps)
            var total = 0.0
            for source in first..<min(last, first + taps) {
                let weight: Double
                if resolved == .area {
                    // Coverage of source pixel [source, source+1) by the output footprint.
                    let low = max(Double(source), center - support)
                    let high = min(Double(source + 1), center + support)
                    weight = max(0, high - low)
                } else {
                    weight = resolved.weight((Double(source) + 0.5 - center) / stretch)
                }
                row[source - first] = weight
                total += weight
            }
            if total == 0 { row[0] = 1; total = 1 }  // a footprint between samples: nearest neighbour
            starts[index] = first
            counts[index] = max(1, (row.lastIndex { $0 != 0 } ?? 0) + 1)
            for tap in 0..<taps { weights[index * taps + tap] = Float(row[tap] / total) }
        }
        self.sourceLength = sourceLength
        self.tapsPerOutput = taps
        self.starts = starts
        self.counts = counts
        self.weights = weights
    }

    /// The number of output samples.
    var targetLength: Int { starts.count }
    /// The number of input samples.
    let sourceLength: Int

    /// Whether filtering vertically first costs fewer vector operations than horizontally
    /// first: a horizontal tap is one operation per pixel, a vertical tap one per four samples.
    /// Shrinking both sides, it is: the cheap vertical pass runs on the longer rows.
    static func verticalFirst(horizontal: ResamplingTaps, vertical: ResamplingTaps, channels: Int) -> Bool {
        let horizontalTaps = Double(horizontal.counts.reduce(0, +)) / Double(horizontal.targetLength)
        let verticalTaps = Double(vertical.counts.reduce(0, +)) / Double(vertical.targetLength)
        let perSample = Double(channels) / 4
        let targetWidth = Double(horizontal.targetLength), targetHeight = Double(vertical.targetLength)
        let verticalFirst = targetHeight * (Double(horizontal.sourceLength) * verticalTaps * perSample + targetWidth * horizontalTaps)
        let horizontalFirst = Double(vertical.sourceLength) * targetWidth * horizontalTaps + targetHeight * targetWidth * verticalTaps * perSample
        return verticalFirst <= horizontalFirst
    }
}

extension Image {
    /// The image resampled to exactly `width` x `height`.
    ///
    /// RGBA images are resampled with premultiplied alpha, so transparent pixels
    /// never bleed their hidden colour into visible ones.
    public func resized(width targetWidth: Int, height targetHeight: Int, filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        try resized(from: PixelRect(x: 0, y: 0, width: width, height: height), width: targetWidth, height: targetHeight, filter: filter)
    }

    /// The part `region` of the image resampled to exactly `width` x `height`, without
    /// copying the region first (the same pixels as `cropped(to:)` then `resized`).
    ///
    /// The region's rows are streamed through a `RowResampler`.
    public func resized(from region: PixelRect, width targetWidth: Int, height targetHeight: Int,
                        filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        guard targetWidth > 0, targetHeight > 0 else {
            throw .invalidArgument("cannot resize to \(targetWidth)x\(targetHeight): both sides must be positive")
        }
        guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0,
              region.x + region.width <= width, region.y + region.height <= height else {
            throw .invalidArgument("the region \(region.width)x\(region.height) at (\(region.x), \(region.y)) does not fit inside the \(width)x\(height) image")
        }
        if targetWidth == region.width && targetHeight == region.height { return try cropped(to: region) }
        let resampler = RowResampler(sourceWidth: region.width, sourceHeight: region.height, targetWidth: targetWidth,
                                     targetHeight: targetHeight, pixelFormat: pixelFormat, filter: filter)
        let bytesPerRow = bytesPerRow, channels = pixelFormat.bytesPerPixel
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<region.height {
                resampler.push(source.baseAddress! + (region.y + row) * bytesPerRow + region.x * channels)
            }
        }
        return resampler.image()
    }

    /// The image scaled down (never up) so its long side is at most `longSide`, keeping its aspect ratio.
    public func resized(fittingLongSide longSide: Int, filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        guard longSide > 0 else { throw .invalidArgument("the long side must be positive, got \(longSide)") }
        guard max(width, height) > longSide else { return self }
        let size = Image.fittedSize(width: width, height: height, longSide: longSide)
        return try resized(width: size.width, height: size.height, filter: filter)
    }

    /// The size of a `width` x `height` picture reduced (never enlarged) so that its long side is at
    /// most `longSide`, keeping its proportions.
    public static func fittedSize(width: Int, height: Int, longSide: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > longSide, longSide > 0 else { return (width, height) }
        let scale = Double(longSide) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}

/// A resampling fed one source row at a time, top to bottom, so the source never needs to
/// be in memory whole (a JPEG decoded row by row, or a region of an image read in place).
///
/// The two passes are streamed through a ring of as many rows as the vertical filter has
/// taps, in the order that costs less (``ResamplingTaps/verticalFirst(horizontal:vertical:channels:)``):
/// usually vertically first (whole rows of samples combined with vector arithmetic, the cheap
/// pass, on the longer side), then horizontally on the rows that are left, each pixel a
/// `SIMD4<Float>` load whatever its channels. Each output row is made as soon as its source
/// rows are in. RGBA is resampled with premultiplied alpha.
final class RowResampler {
    private let horizontal: ResamplingTaps
    private let vertical: ResamplingTaps
    private let kernels: RowKernels
    private let sourceWidth: Int, targetWidth: Int, targetHeight: Int
    private let pixelFormat: PixelFormat
    private let verticalFirst: Bool
    private let ringStride: Int, ringRows: Int
    /// The ring of rows, and two rows of scratch space, all padded by one vector (a pixel of
    /// three channels is read and written as four floats, the fourth belonging to the next pixel).
    private let ring: UnsafeMutablePointer<Float>
    private let scratch: UnsafeMutablePointer<Float>
    private let combined: UnsafeMutablePointer<Float>
    private var output: [UInt8]
    private var loaded = 0, produced = 0

    /// A resampling of `sourceWidth` x `sourceHeight` pixels of `pixelFormat` to `targetWidth` x `targetHeight`.
    init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int, pixelFormat: PixelFormat, filter: ResamplingFilter) {
        horizontal = ResamplingTaps(sourceLength: sourceWidth, targetLength: targetWidth, filter: filter)
        vertical = ResamplingTaps(sourceLength: sourceHeight, targetLength: targetHeight, filter: filter)
        let channels = pixelFormat.bytesPerPixel
        kernels = RowKernels(channels: channels, premultiplied: pixelFormat.hasAlpha)
        self.sourceWidth = sourceWidth
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.pixelFormat = pixelFormat
        verticalFirst = ResamplingTaps.verticalFirst(horizontal: horizontal, vertical: vertical, channels: channels)
        ringStride = (verticalFirst ? sourceWidth : targetWidth) * channels + 4
        ringRows = vertical.tapsPerOutput
        let rowLength = max(sourceWidth, targetWidth) * channels + 4
        ring = .allocate(capacity: ringRows * ringStride)
        ring.initialize(repeating: 0, count: ringRows * ringStride)
        scratch = .allocate(capacity: rowLength)
        scratch.initialize(repeating: 0, count: rowLength)
        combined = .allocate(capacity: rowLength)
        combined.initialize(repeating: 0, count: rowLength)
        output = [UInt8](repeating: 0, count: targetWidth * targetHeight * channels)
    }

    deinit {
        ring.deallocate()
        scratch.deallocate()
        combined.deallocate()
    }

    /// Takes the next source row (`sourceWidth` pixels) and makes every output row it completes.
    func push(_ row: UnsafePointer<UInt8>) {
        guard loaded < vertical.sourceLength else { return }
        let slot = ring + (loaded % ringRows) * ringStride
        if verticalFirst {
            kernels.load(row, into: slot, pixels: sourceWidth)
        } else {
            kernels.load(row, into: scratch, pixels: sourceWidth)
            kernels.filter(scratch, into: slot, taps: horizontal)
        }
        loaded += 1
        // The ring holds the last `ringRows` rows, which cover every output row still to come.
        while produced < targetHeight && vertical.starts[produced] + vertical.counts[produced] <= loaded {
            emit(produced)
            produced += 1
        }
    }

    /// The resampled image; rows never completed (fewer source rows pushed than announced) are black.
    func image() -> Image {
        Image(uncheckedWidth: targetWidth, height: targetHeight, pixelFormat: pixelFormat, pixels: output)
    }

    private func emit(_ y: Int) {
        let channels = pixelFormat.bytesPerPixel
        let samples = (verticalFirst ? sourceWidth : targetWidth) * channels
        vertical.weights.withUnsafeBufferPointer { weights in
            kernels.combine(ring, stride: ringStride, ringRows: ringRows, first: vertical.starts[y], count: vertical.counts[y],
                            weights: weights.baseAddress! + y * vertical.tapsPerOutput, samples: samples, into: combined)
        }
        output.withUnsafeMutableBufferPointer { target in
            let out = target.baseAddress! + y * targetWidth * channels
            if verticalFirst {
                kernels.filter(combined, into: scratch, taps: horizontal)
                kernels.store(scratch, into: out, pixels: targetWidth)
            } else {
                kernels.store(combined, into: out, pixels: targetWidth)
            }
        }
    }
}

/// The four steps of a resampling, one row at a time, on rows of floats with `channels`
/// samples per pixel (premultiplied RGBA, or RGB).
private struct RowKernels {
    let channels: Int
    let premultiplied: Bool

    /// `pixels` pixels of bytes into floats, premultiplied by alpha when the format has one.
    @inline(__always)
    func load(_ bytes: UnsafePointer<UInt8>, into floats: UnsafeMutablePointer<Float>, pixels: Int) {
        if premultiplied {
            for x in 0..<pixels {
                let pixel = bytes + x * 4
                let alpha = Float(pixel[3])
                let scale = alpha / 255
                floats[x * 4] = Float(pixel[0]) * scale
                floats[x * 4 + 1] = Float(pixel[1]) * scale
                floats[x * 4 + 2] = Float(pixel[2]) * scale
                floats[x * 4 + 3] = alpha
            }
        } else {
            for index in 0..<(pixels * channels) { floats[index] = Float(bytes[index]) }
        }
    }

    /// The row filtered horizontally: each output pixel the weighted sum of its taps, every
    /// pixel one unaligned `SIMD4<Float>` (the input is padded by four floats).
    @inline(__always)
    func filter(_ input: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>, taps: ResamplingTaps) {
        let channels = channels, tapsPerOutput = taps.tapsPerOutput
        taps.starts.withUnsafeBufferPointer { starts in
            taps.counts.withUnsafeBufferPointer { counts in
                taps.weights.withUnsafeBufferPointer { weights in
                    let pixelBytes = channels * MemoryLayout<Float>.stride
                    for x in 0..<starts.count {
                        var pixel = UnsafeRawPointer(input + starts[x] * channels)
                        let weight = weights.baseAddress! + x * tapsPerOutput
                        var sum = SIMD4<Float>.zero
                        for tap in 0..<counts[x] {
                            sum += weight[tap] * pixel.loadUnaligned(as: SIMD4<Float>.self)
                            pixel += pixelBytes
                        }
                        UnsafeMutableRawPointer(output + x * channels).storeBytes(of: sum, as: SIMD4<Float>.self)
                    }
                }
            }
        }
    }

    /// `samples` floats combined across `count` ring rows from row `first`: the vertical pass,
    /// two rows at a time so each output sample is loaded and stored half as often.
    @inline(__always)
    func combine(_ ring: UnsafeMutablePointer<Float>, stride: Int, ringRows: Int, first: Int, count: Int,
                 weights: UnsafePointer<Float>, samples: Int, into output: UnsafeMutablePointer<Float>) {
        func row(_ tap: Int) -> UnsafeMutablePointer<Float> { ring + ((first + tap) % ringRows) * stride }
        let top = row(0), topWeight = weights[0]
        for index in 0..<samples { output[index] = topWeight * top[index] }
        var tap = 1
        while tap + 1 < count {
            let upper = row(tap), lower = row(tap + 1)
            let upperWeight = weights[tap], lowerWeight = weights[tap + 1]
            for index in 0..<samples { output[index] += upperWeight * upper[index] + lowerWeight * lower[index] }
            tap += 2
        }
        if tap < count {
            let last = row(tap), lastWeight = weights[tap]
            for index in 0..<samples { output[index] += lastWeight * last[index] }
        }
    }

    /// `pixels` pixels of floats back to bytes: alpha divided out, clamped to 0...255, rounded.
    @inline(__always)
    func store(_ floats: UnsafeMutablePointer<Float>, into bytes: UnsafeMutablePointer<UInt8>, pixels: Int) {
        if premultiplied {
            for x in 0..<pixels {
                let value = UnsafeRawPointer(floats + x * 4).loadUnaligned(as: SIMD4<Float>.self)
                let alpha = min(max(value[3], 0), 255)
                var scaled = value * (alpha > 0 ? 255 / alpha : 0)
                scaled.w = alpha
                for channel in 0..<4 { bytes[x * 4 + channel] = roundedByte(scaled[channel]) }
            }
        } else {
            for index in 0..<(pixels * channels) { bytes[index] = roundedByte(floats[index]) }
        }
    }
}

/// `value` clamped to 0...255 and rounded to the nearest integer (halves to even).
///
/// Adding 1.5 x 2^23 leaves the rounded integer in the low mantissa bits, which are read
/// directly: no conversion with a range check, so a loop of these vectorises.
@inline(__always)
private func roundedByte(_ value: Float) -> UInt8 {
    let clamped = min(max(value, 0), 255)
    return UInt8(truncatingIfNeeded: (clamped + 12_582_912).bitPattern)
}
