package import Foundation

/// The one convention for instants in Memora's databases: INTEGER milliseconds since 1970 UTC.
package enum Instant {
    /// `date` in milliseconds since 1970 UTC, to the nearest.
    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Now, in milliseconds since 1970 UTC, to the nearest.
    package static var now: Int64 { milliseconds(Date()) }

    /// The date of a number of milliseconds since 1970 UTC.
    package static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
