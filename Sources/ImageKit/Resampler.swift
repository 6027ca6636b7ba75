/// The taps of a 1-D resampling: for each output sample, a first source index and weights.
struct ResamplingTaps {
    let tapsPerOutput: Int
    let starts: [Int]
    let weights: [Float]

    /// Precomputes the weights to map `sourceLength` samples onto `targetLength`.
    init(sourceLength: Int, targetLength: Int, filter: ResamplingFilter) {
        let factor = Double(sourceLength) / Double(targetLength)
        let resolved = filter.resolved(factor: factor)
        let stretch = max(factor, 1)
        let support = resolved == .area ? max(factor, 1) / 2 : resolved.radius * stretch
        let taps = Int((support * 2).rounded(.up)) + 2
        var starts = [Int](repeating: 0, count: targetLength)
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
            for tap in 0..<taps { weights[index * taps + tap] = Float(row[tap] / total) }
        }
        self.tapsPerOutput = taps
        self.starts = starts
        self.weights = weights
    }
}

extension Image {
    /// The image resampled to exactly `width` x `height`.
    ///
    /// RGBA images are resampled with premultiplied alpha, so transparent pixels
    /// never bleed their hidden colour into visible ones.
    public func resized(width targetWidth: Int, height targetHeight: Int, filter: ResamplingFilter = .automatic) throws(ImageError) -> Image {
        guard targetWidth > 0, targetHeight > 0 else {
            throw .invalidArgument("cannot resize to \(targetWidth)x\(targetHeight): both sides must be positive")
        }
        if targetWidth == width && targetHeight == height { return self }
        let horizontal = ResamplingTaps(sourceLength: width, targetLength: targetWidth, filter: filter)
        let vertical = ResamplingTaps(sourceLength: height, targetLength: targetHeight, filter: filter)
        let channels = pixelFormat.bytesPerPixel
        let premultiply = pixelFormat.hasAlpha

        // Pass 1: each source row is converted to floats once (premultiplied when
        // it has alpha), then shrinks horizontally into a row of the intermediate.
        let rowLength = targetWidth * channels
        var intermediate = [Float](repeating: 0, count: rowLength * height)
        var sourceFloats = [Float](repeating: 0, count: width * channels)
        pixels.withUnsafeBufferPointer { source in
            intermediate.withUnsafeMutableBufferPointer { middle in
                sourceFloats.withUnsafeMutableBufferPointer { floats in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        horizontal.starts.withUnsafeBufferPointer { starts in
                            let taps = horizontal.tapsPerOutput
                            for y in 0..<height {
                                let sourceRow = source.baseAddress! + y * bytesPerRow
                                if premultiply {
                                    for x in 0..<width {
                                        let alpha = Float(sourceRow[x * 4 + 3])
                                        let scale = alpha / 255
                                        floats[x * 4] = Float(sourceRow[x * 4]) * scale
                                        floats[x * 4 + 1] = Float(sourceRow[x * 4 + 1]) * scale
                                        floats[x * 4 + 2] = Float(sourceRow[x * 4 + 2]) * scale
                                        floats[x * 4 + 3] = alpha
                                    }
                                } else {
                                    for index in 0..<(width * channels) { floats[index] = Float(sourceRow[index]) }
                                }
                                let targetRow = middle.baseAddress! + y * rowLength
                                for x in 0..<targetWidth {
                                    let start = starts[x]
                                    let count = min(taps, width - start)
                                    let weightRow = weights.baseAddress! + x * taps
                                    var pixel = floats.baseAddress! + start * channels
                                    var sum0: Float = 0, sum1: Float = 0, sum2: Float = 0, sum3: Float = 0
                                    if channels == 4 {
                                        for tap in 0..<count {
                                            let weight = weightRow[tap]
                                            sum0 += weight * pixel[0]
                                            sum1 += weight * pixel[1]
                                            sum2 += weight * pixel[2]
                                            sum3 += weight * pixel[3]
                                            pixel += 4
                                        }
                                        targetRow[x * 4 + 3] = sum3
                                    } else {
                                        for tap in 0..<count {
                                            let weight = weightRow[tap]
                                            sum0 += weight * pixel[0]
                                            sum1 += weight * pixel[1]
                                            sum2 += weight * pixel[2]
                                            pixel += 3
                                        }
                                    }
                                    targetRow[x * channels] = sum0
                                    targetRow[x * channels + 1] = sum1
                                    targetRow[x * channels + 2] = sum2
                                }
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: columns shrink vertically; results are rounded and clamped to 8 bits.
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * channels)
        intermediate.withUnsafeBufferPointer { middle in
            output.withUnsafeMutableBufferPointer { target in
                vertical.weights.withUnsafeBufferPointer { weights in
                    var accumulator = [Float](repeating: 0, count: rowLength)
                    accumulator.withUnsafeMutableBufferPointer { sums in
                        let taps = vertical.tapsPerOutput
                        for y in 0..<targetHeight {
                            sums.update(repeating: 0)
                            let start = vertical.starts[y]
                            for tap in 0..<min(taps, height - start) {
                                let weight = weights[y * taps + tap]
                                if weight == 0 { continue }
                                let row = middle.baseAddress! + (start + tap) * rowLength
                                for index in 0..<rowLength { sums[index] += weight * row[index] }
                            }
                            let out = target.baseAddress! + y * rowLength
                            if premultiply {
                                for x in 0..<targetWidth {
                                    let alpha = min(max(sums[x * 4 + 3], 0), 255)
                                    let unscale: Float = alpha > 0 ? 255 / alpha : 0
                                    for channel in 0..<3 { out[x * 4 + channel] = clampToByte(sums[x * 4 + channel] * unscale) }
                                    out[x * 4 + 3] = clampToByte(alpha)
                                }
                            } else {
                                for index in 0..<rowLength { out[index] = clampToByte(sums[index]) }
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

@inline(__always)
private func clampToByte(_ value: Float) -> UInt8 {
    let rounded = (value + 0.5).rounded(.down)
    return rounded <= 0 ? 0 : rounded >= 255 ? 255 : UInt8(rounded)
}
