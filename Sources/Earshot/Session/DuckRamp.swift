#if canImport(Glibc)
import Glibc
#endif

/// A linear gain ramp on the engine clock: the music bus's duck factor.
///
/// ``retarget(_:duration:now:)`` starts a new ramp from wherever the current one is, so a hint
/// that ends half-way through the attack comes back from the level reached, without a jump.
struct DuckRamp: Sendable, Equatable {
    private(set) var from: Float = 1
    private(set) var target: Float = 1
    private(set) var start: Double = 0
    private(set) var duration: Double = 0

    /// The gain at engine time `now` (seconds).
    func value(at now: Double) -> Float {
        guard duration > 0 else { return target }
        let t = (now - start) / duration
        if t >= 1 { return target }
        if t <= 0 { return from }
        return from + (target - from) * Float(t)
    }

    /// Whether the ramp has reached its target at `now`.
    func isSettled(at now: Double) -> Bool { duration <= 0 || now - start >= duration }

    /// Ramps from the current value to `target` over `duration` seconds from `now`.
    mutating func retarget(_ target: Float, duration: Double, now: Double) {
        from = value(at: now)
        self.target = target
        start = now
        self.duration = max(0, duration)
    }

    /// Lands on `target` at once.
    mutating func jump(to target: Float) {
        from = target
        self.target = target
        duration = 0
    }

    /// The linear gain of a level in decibels (−∞ → 0).
    static func gain(decibels: Double) -> Float {
        decibels == -.infinity ? 0 : Float(pow(10, decibels / 20))
    }
}
