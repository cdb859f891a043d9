import EarshotContent

/// A ramp under way in a running scene.
struct SceneRamp {
    var target: SceneSetTarget
    var property: SceneChange.Property
    var from: Float
    var to: Float
    var start: Double
    var duration: Double
    var curve: SceneRampCurve

    /// The value at scene time `t`, and whether the ramp is over.
    func value(at t: Double) -> (Float, done: Bool) {
        guard duration > 0 else { return (to, true) }
        let p = (t - start) / duration
        return (curve.value(from: from, to: to, progress: p), p >= 1)
    }
}
