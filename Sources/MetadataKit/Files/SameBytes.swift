import Foundation

/// Byte equality of two buffers with `memcmp`: many times faster than `Array ==`, which
/// compares element by element, on the megabytes of image data a write verifies.
func sameBytes(_ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>) -> Bool {
    guard first.count == second.count else { return false }
    return first.withUnsafeBytes { a in
        second.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }
}
