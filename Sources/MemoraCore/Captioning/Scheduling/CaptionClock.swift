public import MemoraSystem

/// The clock the captioning job reads: MemoraSystem's ``MemoraSystem/MemoraClock``, the one every
/// module is given (``MemoraSystem/SystemClock`` for real, ``MemoraSystem/ManualClock`` in tests).
@available(*, deprecated, renamed: "MemoraClock")
public typealias CaptionClock = MemoraClock
