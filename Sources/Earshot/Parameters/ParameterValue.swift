/// A parameter's heard value and the value it moves toward (global, a voice's own or an
/// emitter's), moved once per frame by ``ParameterStage``.
struct ParameterValue {
    /// What curves read now.
    var current: Double
    /// What the game set last.
    var target: Double
    /// Units per second the value moves toward `target` (0: it is there already).
    var speed: Double = 0

    init(_ value: Double) {
        current = value
        target = value
    }

    var isMoving: Bool { current != target }

    /// Sets a new target, reached at `seek` units per second (0: at once), or over `ramp`
    /// seconds when given (0: at once).
    mutating func set(_ value: Double, seek: Double, ramp: Double?) {
        target = value
        if let ramp {
            speed = ramp > 0 ? abs(value - current) / ramp : 0
        } else {
            speed = seek
        }
        if speed == 0 || !speed.isFinite { current = value }
    }

    /// Moves toward the target by `elapsed` seconds of playback; true when the value changed.
    @inline(__always)
    mutating func advance(_ elapsed: Double) -> Bool {
        guard current != target, elapsed > 0 else { return false }
        let step = speed * elapsed
        if abs(target - current) <= step { current = target } else { current += target > current ? step : -step }
        return true
    }
}

/// A parameter's value of one voice or emitter (by parameter index).
struct LocalParameter {
    var parameter: Int
    var value: ParameterValue
}
