/// The engine's audio clock: seconds of output heard, from a source clock that may stop, jump
/// (a new device starts its own at 0) or run on while nothing is heard.
///
/// The source is what the output says it has played: on a loopback engine the frames rendered ÷
/// the rate (exact); on a live device OpenAL Soft's device clock minus its latency
/// (`ALC_SOFT_device_clock`: the time of the sample leaving the speaker now). The clock counts
/// only the spans the output is *heard* — not while an interruption holds the audio or the device
/// is lost — and never runs backwards. A value for a pure time model, usable alone.
///
/// ```swift
/// var clock = AudioClock()
/// _ = clock.time(source: 1.0)      // 1 s heard
/// clock.hold(.interruption, source: 1.0)
/// _ = clock.time(source: 3.0)      // still 1 s
/// clock.release(.interruption, source: 3.0)
/// assert(clock.time(source: 3.5) == 1.5)
/// ```
struct AudioClock: Sendable {
    /// Seconds heard before the current span.
    private var before: Double = 0
    /// Where the current heard span began on the source clock; nil while held.
    private var spanStart: Double? = 0
    /// The last time returned (the clock never runs backwards).
    private var last: Double = 0

    /// A clock that reads 0 at the source clock's reading `start`.
    init(start: Double = 0) {
        spanStart = start
    }

    /// The audio time for the source clock's reading `source`.
    mutating func time(source: Double) -> Double {
        guard let start = spanStart else { return last }
        last = max(last, before + max(0, source - start))
        return last
    }

    /// Why the output is not heard.
    enum Hold: UInt8 {
        case interruption = 1
        case deviceLost = 2
    }
    private var holds: UInt8 = 0

    /// The output is held from `source` on, for `reason` (an interruption, a lost device): the
    /// clock stands until every hold is released.
    mutating func hold(_ reason: Hold, source: Double) {
        if holds == 0 {
            before = time(source: source)
            spanStart = nil
        }
        holds |= reason.rawValue
    }

    /// `reason` no longer holds the output; the clock runs again from `source` on once no hold is left.
    mutating func release(_ reason: Hold, source: Double) {
        guard holds & reason.rawValue != 0 else { return }
        holds &= ~reason.rawValue
        if holds == 0 { spanStart = source }
    }

    /// The source clock restarts (a new device): the span goes on from `source`, without a jump.
    mutating func restart(source: Double) {
        guard spanStart != nil else { return }   // held: `release` starts the next span
        before = last
        spanStart = source
    }

    /// The source clock's reading at which the clock reads `time` (the inverse of
    /// ``time(source:)`` on the current span), or nil while held: where a live device must be
    /// for a scheduled voice to be heard at `time`.
    func source(at time: Double) -> Double? {
        guard let start = spanStart else { return nil }
        return start + (time - before)
    }

    /// The time the clock will read when its source reads `source` (a reading ahead of now, on
    /// the current span), without moving the clock; nil while held.
    func projectedTime(source: Double) -> Double? {
        guard let start = spanStart else { return nil }
        return max(last, before + max(0, source - start))
    }

    /// The last time the clock returned (what it reads while held, or once its source is gone).
    var lastTime: Double { last }

    /// Whether the clock stands (held).
    var isHeld: Bool { spanStart == nil }
}
