import ImageKit

/// Names the dominant colours of an image in plain words, for the basic description.
enum ColorNames {
    /// The colour name of one pixel: achromatic by lightness, else by hue (browns are dark oranges and reds).
    static func name(_ color: RGBAColor) -> String {
        let red = Double(color.red) / 255, green = Double(color.green) / 255, blue = Double(color.blue) / 255
        let maximum = max(red, green, blue), minimum = min(red, green, blue)
        let value = maximum
        let saturation = maximum == 0 ? 0 : (maximum - minimum) / maximum
        if saturation < 0.18 || maximum - minimum < 0.08 {
            return value < 0.2 ? "black" : value < 0.8 ? "grey" : "white"
        }
        if value < 0.12 { return "black" }
        var hue: Double
        let delta = maximum - minimum
        if maximum == red {
            hue = 60 * ((green - blue) / delta).truncatingRemainder(dividingBy: 6)
        } else if maximum == green {
            hue = 60 * ((blue - red) / delta + 2)
        } else {
            hue = 60 * ((red - green) / delta + 4)
        }
        if hue < 0 { hue += 360 }
        switch hue {
        case ..<15, 345...: return value < 0.55 ? "brown" : "red"
        case ..<45: return value < 0.6 ? "brown" : "orange"
        case ..<70: return value < 0.5 ? "olive" : "yellow"
        case ..<165: return "green"
        case ..<200: return "teal"
        case ..<260: return "blue"
        case ..<290: return "purple"
        default: return "pink"
        }
    }

    /// The names covering at least `minimumShare` of the pixels, most common first (at most `limit`).
    static func dominant(in image: Image, limit: Int = 2, minimumShare: Double = 0.15) -> [String] {
        var counts: [String: Int] = [:]
        for y in 0..<image.height {
            for x in 0..<image.width { counts[name(image.pixel(x: x, y: y)), default: 0] += 1 }
        }
        let total = Double(max(1, image.pixelCount))
        return counts.filter { Double($0.value) / total >= minimumShare }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(limit).map(\.key)
    }

    /// Mean luma (Rec. 601) in 0...1.
    static func brightness(of image: Image) -> Double {
        var sum = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                sum += 0.299 * Double(pixel.red) + 0.587 * Double(pixel.green) + 0.114 * Double(pixel.blue)
            }
        }
        return sum / Double(max(1, image.pixelCount)) / 255
    }
}
