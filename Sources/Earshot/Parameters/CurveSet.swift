import Foundation

/// What the curves on one voice make of its properties, before they are applied to its own
/// gain, pitch and priority: dB add, the rest as ``ParameterCurve/Property`` says.
struct CurveFactors: Equatable {
    var decibels: Double = 0
    var pitch: Double = 1
    var lowPass: Double = 1
    var send: Double = 1
    var priority: Double = 0

    static let identity = CurveFactors()

    /// Adds a curve's value for `property`.
    @inline(__always)
    mutating func add(_ property: ParameterCurve.Property, _ y: Double) {
        switch property {
        case .gain: decibels += y
        case .pitch: pitch *= y
        case .lowPass: lowPass *= y
        case .reverbSend: send *= y
        case .priority: priority += y
        }
    }

    /// Both sets of curves at once (a sound's and its bus's).
    static func + (a: CurveFactors, b: CurveFactors) -> CurveFactors {
        CurveFactors(decibels: a.decibels + b.decibels, pitch: a.pitch * b.pitch, lowPass: a.lowPass * b.lowPass,
                     send: a.send * b.send, priority: a.priority + b.priority)
    }

    /// The linear gain factor.
    var gain: Float { Float(pow(10, decibels / 20)) }
    /// Whether a low-pass or send curve is in play (needs the filter stage).
    var filters: Bool { lowPass != 1 || send != 1 }
}

/// Curves compiled against an engine's parameters (indices for names), with the result for the
/// global values cached: every voice of a sound without values of its own shares one evaluation
/// per frame in which a global value moved.
struct CurveSet {
    struct Curve {
        var parameter: Int
        var property: ParameterCurve.Property
        var points: [ParameterCurve.Point]
        var shape: ParameterCurve.Shape
    }

    var curves: [Curve]
    /// Whether some curve drives the low-pass or the sends.
    var hasFilters: Bool
    var cached = CurveFactors.identity
    var cachedEpoch: UInt64 = 0

    init(curves: [Curve]) {
        self.curves = curves
        hasFilters = curves.contains { $0.property == .lowPass || $0.property == .reverbSend }
    }

    /// The curves' factors with `value(parameter)` for each parameter.
    @inline(__always)
    func evaluate(_ value: (Int) -> Double) -> CurveFactors {
        var f = CurveFactors()
        for c in curves { f.add(c.property, ParameterCurve.evaluate(c.points, c.shape, value(c.parameter))) }
        return f
    }
}
