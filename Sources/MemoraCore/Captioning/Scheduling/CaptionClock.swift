public import MemoraSystem

/// The clock the captioning job reads: MemoraSystem's `MemoraClock`, the one every
/// module is given (`SystemClock` for real, `ManualClock` in tests).
@available(*, deprecated, renamed: "MemoraClock")
public typealias CaptionClock = MemoraClock
