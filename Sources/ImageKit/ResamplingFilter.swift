import Foundation

/// The filter used to change an image's size.
public enum ResamplingFilter: String, Sendable, Hashable, CaseIterable, Codable {
    /// Area averaging when an axis shrinks by 2x or more, Lanczos-3 otherwise (the default).
    case automatic
    /// Exact area averaging (box filter weighted by coverage): fast and alias-free for large reductions.
    case area
    /// Catmull-Rom bicubic (a = -0.5).
    case bicubic
    /// Lanczos with three lobes: the sharpest, for small reductions and enlargements.
    case lanczos3

    /// The filter actually used for one axis shrinking by `factor` (source / target).
    func resolved(factor: Double) -> ResamplingFilter {
        guard self == .automatic else { return self }
        return factor >= 2 ? .area : .lanczos3
    }

    /// The kernel's radius in source pixels at scale 1.
    var radius: Double {
        switch self {
        case .automatic, .lanczos3: 3
        case .bicubic: 2
        case .area: 0.5
        }
    }

    /// The kernel's weight at distance `x` (in filter units).
    func weight(_ x: Double) -> Double {
        let x = abs(x)
        switch self {
        case .area:
            return x < 0.5 ? 1 : 0
        case .bicubic:
            let a = -0.5
            if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
            if x < 2 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
            return 0
        case .automatic, .lanczos3:
            if x == 0 { return 1 }
            if x >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}
