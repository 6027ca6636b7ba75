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
        self.tapsPerOutput = taps
        self.starts = starts
        self.counts = counts
        self.weights = weights
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
    /// The two passes are streamed: each source row of the region is filtered horizontally
    /// once, into a ring of as many rows as the vertical filter has taps, and each output row
    /// is made from that ring; every pixel is a `SIMD4<Float>` (premultiplied RGBA, or RGB and
    /// an unused lane), so a tap is one vector multiply-add whatever the format.
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
        let horizontal = ResamplingTaps(sourceLength: region.width, targetLength: targetWidth, filter: filter)
        let vertical = ResamplingTaps(sourceLength: region.height, targetLength: targetHeight, filter: filter)
        let channels = pixelFormat.bytesPerPixel
        let premultiply = pixelFormat.hasAlpha
        let ringRows = vertical.tapsPerOutput
        var ring = [SIMD4<Float>](repeating: .zero, count: ringRows * targetWidth)
        var sourceRow = [SIMD4<Float>](repeating: .zero, count: region.width)
        var sums = [SIMD4<Float>](repeating: .zero, count: targetWidth)
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * channels)
        // The horizontal weights broadcast once to all four lanes: the inner loop is then one
        // load-multiply and one add per tap.
        let horizontalWeights = horizontal.weights.map { SIMD4<Float>(repeating: $0) }
        let bytesPerRow = bytesPerRow
        pixels.withUnsafeBufferPointer { source in
            ring.withUnsafeMutableBufferPointer { ring in
                sourceRow.withUnsafeMutableBufferPointer { floats in
                    sums.withUnsafeMutableBufferPointer { sums in
                        output.withUnsafeMutableBufferPointer { target in
                            horizontalWeights.withUnsafeBufferPointer { hWeights in
                                vertical.weights.withUnsafeBufferPointer { vWeights in
                                    let floats = floats.baseAddress!, ring = ring.baseAddress!, sums = sums.baseAddress!
                                    /// Filters region row `row` horizontally into its ring slot.
                                    func filterRow(_ row: Int) {
                                        let bytes = source.baseAddress! + (region.y + row) * bytesPerRow + region.x * channels
                                        if premultiply {
                                            for x in 0..<region.width {
                                                let alpha = Float(bytes[x * 4 + 3])
                                                let scale = alpha / 255
                                                floats[x] = SIMD4(Float(bytes[x * 4]) * scale, Float(bytes[x * 4 + 1]) * scale,
                                                                  Float(bytes[x * 4 + 2]) * scale, alpha)
                                            }
                                        } else {
                                            for x in 0..<region.width {
                                                floats[x] = SIMD4(Float(bytes[x * 3]), Float(bytes[x * 3 + 1]), Float(bytes[x * 3 + 2]), 0)
                                            }
                                        }
                                        let slot = ring + (row % ringRows) * targetWidth
                                        let taps = horizontal.tapsPerOutput
                                        let starts = horizontal.starts, counts = horizontal.counts
                                        for x in 0..<targetWidth {
                                            let start = starts[x]
                                            let weights = hWeights.baseAddress! + x * taps
                                            let pixel = floats + start
                                            var sum = SIMD4<Float>.zero
                                            for tap in 0..<counts[x] { sum += weights[tap] * pixel[tap] }
                                            slot[x] = sum
                                        }
                                    }
                                    var filtered = 0  // region rows filtered so far
                                    let taps = vertical.tapsPerOutput
                                    for y in 0..<targetHeight {
                                        let start = vertical.starts[y], count = vertical.counts[y]
                                        while filtered < start + count {
                                            filterRow(filtered)
                                            filtered += 1
                                        }
                                        let weights = vWeights.baseAddress! + y * taps
                                        let first = ring + (start % ringRows) * targetWidth
                                        for x in 0..<targetWidth { sums[x] = weights[0] * first[x] }
                                        for tap in 1..<max(1, count) {
                                            let row = ring + ((start + tap) % ringRows) * targetWidth
                                            let weight = weights[tap]
                                            for x in 0..<targetWidth { sums[x] += weight * row[x] }
                                        }
                                        let out = target.baseAddress! + y * targetWidth * channels
                                        for x in 0..<targetWidth {
                                            let value = sums[x]
                                            if premultiply {
                                                let alpha = min(max(value[3], 0), 255)
                                                let unscale: Float = alpha > 0 ? 255 / alpha : 0
                                                var scaled = value * unscale
                                                scaled.w = alpha
                                                let color = clampToBytes(scaled)
                                                out[x * 4] = color.x
                                                out[x * 4 + 1] = color.y
                                                out[x * 4 + 2] = color.z
                                                out[x * 4 + 3] = color.w
                                            } else {
                                                let color = clampToBytes(value)
                                                out[x * 3] = color.x
                                                out[x * 3 + 1] = color.y
                                                out[x * 3 + 2] = color.z
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Image(uncheckedWidth: targetWidth, height: targetHeight, pixelFormat: pixelFormat, pixels: output)
    }

    /// The image scaled down (never up) so its long side is at most `longSide`, keeping its aspect ratio.
    public func resized(fittingLongSide longSide: Int, filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        guard longSide > 0 else { throw .invalidArgument("the long side must be positive, got \(longSide)") }
        let longest = max(width, height)
        guard longest > longSide else { return self }
        let scale = Double(longSide) / Double(longest)
        let newWidth = max(1, Int((Double(width) * scale).rounded()))
        let newHeight = max(1, Int((Double(height) * scale).rounded()))
        return try resized(width: newWidth, height: newHeight, filter: filter)
    }
}

/// Each lane clamped to 0...255 and rounded to the nearest integer (halves to even).
///
/// Adding 1.5 x 2^23 leaves the rounded integer in the low mantissa bits, which are read
/// directly: no generic SIMD conversion (not specialised, many times slower) and no
/// per-lane range check.
@inline(__always)
private func clampToBytes(_ value: SIMD4<Float>) -> SIMD4<UInt8> {
    let clamped = value.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
    let bits = unsafeBitCast(clamped + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self)
    return SIMD4(UInt8(truncatingIfNeeded: bits.x), UInt8(truncatingIfNeeded: bits.y),
                 UInt8(truncatingIfNeeded: bits.z), UInt8(truncatingIfNeeded: bits.w))
}
