import ImageKit

/// Names the main colours of an image in the words a person would use, for the basic description.
///
/// Each pixel gets a name from its hue, saturation and value: browns, tans and beiges are the
/// dark and the pale oranges (a tan dog is "tan", not "grey"); black, grey and white only for
/// pixels with little colour. Photos hold many near-grey pixels (shadows, sensor noise) that a
/// person does not see as the photo's colour, so coloured names win at a smaller share than
/// grey, black or white (``dominant(in:limit:)``).
enum ColorNames {
    /// Names that carry no hue.
    static let achromatic: Set<String> = ["black", "grey", "white"]

    /// The colour name of one pixel.
    static func name(_ color: RGBAColor) -> String {
        let red = Double(color.red) / 255, green = Double(color.green) / 255, blue = Double(color.blue) / 255
        let maximum = max(red, green, blue), minimum = min(red, green, blue)
        let value = maximum
        let chroma = maximum - minimum
        let saturation = maximum == 0 ? 0 : chroma / maximum
        if value < 0.13 { return "black" }
        if saturation < 0.14 || chroma < 0.07 {
            return value < 0.3 ? "black" : value < 0.82 ? "grey" : "white"
        }
        var hue: Double
        if maximum == red {
            hue = 60 * ((green - blue) / chroma).truncatingRemainder(dividingBy: 6)
        } else if maximum == green {
            hue = 60 * ((blue - red) / chroma + 2)
        } else {
            hue = 60 * ((red - green) / chroma + 4)
        }
        if hue < 0 { hue += 360 }
        switch hue {
        case ..<12, 345...:
            if value < 0.35 { return "brown" }
            return saturation < 0.45 ? (value > 0.75 ? "pink" : "brown") : "red"
        case ..<48:
            if value < 0.45 { return "brown" }
            if saturation < 0.5 { return value > 0.85 && saturation < 0.3 ? "beige" : "tan" }
            return value < 0.62 ? "brown" : "orange"
        case ..<70: return value < 0.5 ? "olive" : saturation < 0.35 ? "beige" : "yellow"
        case ..<165: return "green"
        case ..<200: return "teal"
        case ..<260: return "blue"
        case ..<290: return "purple"
        default: return "pink"
        }
    }

    /// The main colour names, most common first (at most `limit`): a coloured name covering at
    /// least 10% of the pixels, or black, grey or white covering at least 30% (a photo that is
    /// mostly grey is called grey).
    static func dominant(in image: Image, limit: Int = 2) -> [String] {
        var counts: [String: Int] = [:]
        for y in 0..<image.height {
            for x in 0..<image.width { counts[name(image.pixel(x: x, y: y)), default: 0] += 1 }
        }
        let total = Double(max(1, image.pixelCount))
        return counts.filter { Double($0.value) / total >= (achromatic.contains($0.key) ? 0.3 : 0.1) }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(limit).map(\.key)
    }

    /// The share of paper pixels (light, with little colour: white or light grey) and the share of
    /// coloured ones (any hue a person would name) in `image`. Light is judged against the
    /// picture's own white, its 95th-percentile value: a page photographed in room light is grey
    /// (paper at value 0.55 where a scan's is 0.95), so a pixel is paper at ``paperLightness`` of
    /// that white or more, and always at 0.6 or more (a sunny photo's paper is no stricter than a
    /// scan's). A picture whose white is under ``minPaperWhite`` has no paper: it is dark, not a page.
    static func paperAndColour(in image: Image) -> (paper: Double, coloured: Double) {
        // Values (the brightest channel) of every pixel, and of the pixels with little colour.
        var values = [Int](repeating: 0, count: 256), unsaturated = [Int](repeating: 0, count: 256)
        var coloured = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                let maximum = max(pixel.red, pixel.green, pixel.blue), minimum = min(pixel.red, pixel.green, pixel.blue)
                values[Int(maximum)] += 1
                if Double(maximum - minimum) / 255 < 0.12 {
                    unsaturated[Int(maximum)] += 1
                } else if Double(maximum) / 255 >= 0.15 {
                    coloured += 1
                }
            }
        }
        let total = Double(max(1, image.pixelCount))
        // The picture's white: the value 95% of its pixels do not exceed.
        var below = 0, white = 0.0
        for (value, count) in values.enumerated() {
            below += count
            if Double(below) >= 0.95 * total { white = Double(value) / 255; break }
        }
        guard white >= minPaperWhite else { return (0, Double(coloured) / total) }
        let light = min(255, Int((min(0.6, paperLightness * white) * 255).rounded(.up)))
        return (Double(unsaturated[light...].reduce(0, +)) / total, Double(coloured) / total)
    }

    /// A paper pixel is at least this share of the picture's white (see ``paperAndColour(in:)``).
    static let paperLightness = 0.65
    /// A picture whose white (95th-percentile value) is darker than this has no paper.
    static let minPaperWhite = 0.45

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
