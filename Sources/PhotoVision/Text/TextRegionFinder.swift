internal import PhotoVisionCore
/// A rotated rectangle around a line of text, as four corners in pixels of the image it was found
/// in: top-left, top-right, bottom-right, bottom-left (the reading direction runs from the first to
/// the second).
struct TextQuad: Sendable, Hashable {
    var corners: [SIMD2<Double>]

    /// The corners' bounding box: left, top, right, bottom.
    var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        (corners.map(\.x).min() ?? 0, corners.map(\.y).min() ?? 0, corners.map(\.x).max() ?? 0, corners.map(\.y).max() ?? 0)
    }
}

/// DB text detection's post-processing (Liao et al., "Real-time Scene Text Detection with
/// Differentiable Binarization", and PaddleOCR's `DBPostProcess`): the probability map is
/// thresholded and grown by one pixel, each connected region becomes the smallest rotated rectangle
/// around it, regions the map is not sure of are dropped, and each rectangle is pushed out by
/// `area × unclipRatio / perimeter` on every side (the network is trained on shrunk boxes).
struct TextRegionFinder: Sendable {
    /// A map value above this is text.
    var threshold: Float = 0.3
    /// A region's mean probability must reach this.
    var boxThreshold: Float = 0.5
    /// How far a box is pushed out, as a share of area over perimeter.
    var unclipRatio: Double = 1.6
    /// The most regions kept.
    var maxCandidates = 1000

    /// The text boxes of a `width` x `height` probability map, in map pixels, sorted in reading order;
    /// a region's mean probability must reach `boxThreshold` (nil: ``boxThreshold``).
    func regions(in map: [Float], width: Int, height: Int, boxThreshold: Float? = nil) -> [TextQuad] {
        let boxThreshold = boxThreshold ?? self.boxThreshold
        guard width > 0, height > 0, map.count == width * height else { return [] }
        // Threshold, then grow by one pixel to the right and down (a 2x2 dilation).
        var mask = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let hit = map[y * width + x] > threshold
                    || (x > 0 && map[y * width + x - 1] > threshold)
                    || (y > 0 && map[(y - 1) * width + x] > threshold)
                    || (x > 0 && y > 0 && map[(y - 1) * width + x - 1] > threshold)
                mask[y * width + x] = hit
            }
        }
        var quads: [TextQuad] = []
        var label = [Int32](repeating: 0, count: width * height)
        var next: Int32 = 0
        var stack: [Int] = []
        for start in 0..<(width * height) where mask[start] && label[start] == 0 && quads.count < maxCandidates {
            next += 1
            label[start] = next
            stack.append(start)
            var edge: [SIMD2<Double>] = []
            while let index = stack.popLast() {
                let x = index % width, y = index / width
                var border = false
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { border = true; continue }
                        let neighbour = ny * width + nx
                        if !mask[neighbour] {
                            border = true
                        } else if label[neighbour] == 0 {
                            label[neighbour] = next
                            stack.append(neighbour)
                        }
                    }
                }
                if border { edge.append(SIMD2(Double(x), Double(y))) }
            }
            guard edge.count >= 3, let box = RotatedBox(enclosing: edge), box.shortSide >= 3 else { continue }
            guard meanProbability(map, width: width, height: height, inside: box) >= boxThreshold else { continue }
            let distance = box.area * unclipRatio / box.perimeter
            let grown = box.expanded(by: distance)
            guard grown.shortSide >= 5 else { continue }
            quads.append(TextQuad(corners: grown.orderedCorners))
        }
        return Self.readingOrder(quads)
    }

    /// The mean map value over the pixels whose centres fall inside `box`.
    private func meanProbability(_ map: [Float], width: Int, height: Int, inside box: RotatedBox) -> Float {
        let corners = box.orderedCorners
        let minX = max(0, Int(corners.map(\.x).min()!.rounded(.down))), maxX = min(width - 1, Int(corners.map(\.x).max()!.rounded(.up)))
        let minY = max(0, Int(corners.map(\.y).min()!.rounded(.down))), maxY = min(height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
        guard minX <= maxX, minY <= maxY else { return 0 }
        var total: Float = 0, count = 0
        for y in minY...maxY {
            for x in minX...maxX where box.contains(SIMD2(Double(x), Double(y)), margin: 0.5) {
                total += map[y * width + x]
                count += 1
            }
        }
        return count > 0 ? total / Float(count) : 0
    }

    /// Top to bottom, and left to right among boxes whose tops are within 10 pixels (PaddleOCR's order).
    static func readingOrder(_ quads: [TextQuad]) -> [TextQuad] {
        var sorted = quads.enumerated().sorted { lhs, rhs in
            let a = lhs.element.corners[0], b = rhs.element.corners[0]
            return (a.y, a.x, lhs.offset) < (b.y, b.x, rhs.offset)
        }.map(\.element)
        guard sorted.count > 1 else { return sorted }
        for i in 0..<(sorted.count - 1) {
            var j = i
            while j >= 0 {
                let upper = sorted[j].corners[0], lower = sorted[j + 1].corners[0]
                guard abs(lower.y - upper.y) < 10, lower.x < upper.x else { break }
                sorted.swapAt(j, j + 1)
                j -= 1
            }
        }
        return sorted
    }
}

/// The smallest rectangle, at any angle, around a set of points (rotating calipers over their
/// convex hull).
struct RotatedBox: Sendable, Hashable {
    var center: SIMD2<Double>
    /// Unit vector along the first side, and the perpendicular one.
    var axis: SIMD2<Double>
    var normal: SIMD2<Double>
    /// Side lengths along `axis` and `normal`.
    var length: Double
    var breadth: Double

    var shortSide: Double { min(length, breadth) }
    var area: Double { length * breadth }
    var perimeter: Double { max(2 * (length + breadth), .ulpOfOne) }

    init?(enclosing points: [SIMD2<Double>]) {
        let hull = Self.convexHull(points)
        guard hull.count >= 2 else { return nil }
        var best: (area: Double, axis: SIMD2<Double>, lo: SIMD2<Double>, hi: SIMD2<Double>)?
        for index in hull.indices {
            let edge = hull[(index + 1) % hull.count] - hull[index]
            let size = (edge * edge).sum().squareRoot()
            guard size > 0 else { continue }
            let u = edge / size, v = SIMD2(-u.y, u.x)
            var lo = SIMD2(Double.infinity, .infinity), hi = SIMD2(-Double.infinity, -.infinity)
            for point in hull {
                let projected = SIMD2((point * u).sum(), (point * v).sum())
                lo = pointwiseMin(lo, projected)
                hi = pointwiseMax(hi, projected)
            }
            let area = (hi.x - lo.x) * (hi.y - lo.y)
            if best == nil || area < best!.area { best = (area, u, lo, hi) }
        }
        guard let best else { return nil }
        let u = best.axis, v = SIMD2(-u.y, u.x)
        let middle = (best.lo + best.hi) / 2
        center = u * middle.x + v * middle.y
        axis = u
        normal = v
        // Around the boundary pixels' centres, as OpenCV's minAreaRect of a contour.
        length = best.hi.x - best.lo.x
        breadth = best.hi.y - best.lo.y
    }

    /// The box with `distance` added on every side.
    func expanded(by distance: Double) -> RotatedBox {
        var box = self
        box.length += 2 * distance
        box.breadth += 2 * distance
        return box
    }

    func contains(_ point: SIMD2<Double>, margin: Double) -> Bool {
        let offset = point - center
        return abs((offset * axis).sum()) <= length / 2 + margin && abs((offset * normal).sum()) <= breadth / 2 + margin
    }

    /// The corners as top-left, top-right, bottom-right, bottom-left: sorted by x, the left pair
    /// and the right pair each split by y (PaddleOCR's `get_mini_boxes`).
    var orderedCorners: [SIMD2<Double>] {
        let a = axis * (length / 2), b = normal * (breadth / 2)
        let points = [center - a - b, center + a - b, center + a + b, center - a + b].sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        let (topLeft, bottomLeft) = points[1].y > points[0].y ? (points[0], points[1]) : (points[1], points[0])
        let (topRight, bottomRight) = points[3].y > points[2].y ? (points[2], points[3]) : (points[3], points[2])
        return [topLeft, topRight, bottomRight, bottomLeft]
    }

    /// Andrew's monotone chain, counter-clockwise, without collinear points.
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = Set(points.map { [$0.x, $0.y] }).map { SIMD2($0[0], $0[1]) }.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = [], upper: [SIMD2<Double>] = []
        for point in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], point) <= 0 { lower.removeLast() }
            lower.append(point)
        }
        for point in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], point) <= 0 { upper.removeLast() }
            upper.append(point)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
