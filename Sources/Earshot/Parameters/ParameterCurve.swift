import Foundation

/// How a game parameter drives one property of a sound, a layer or a bus: a list of points
/// `(parameter value, property value)` joined by a ``Shape``.
///
/// The properties and their units (``Property``):
/// - ``Property/gain`` — decibels (−144…+24); several gain curves on one voice **add** (their
///   dB), and the result multiplies the voice's own gain;
/// - ``Property/pitch`` — a pitch factor (1/64…64; 2 = an octave up); several **multiply**, and
///   multiply the voice's own pitch;
/// - ``Property/lowPass`` — the high-frequency gain of a low-pass filter on the voice (0…1,
///   OpenAL's `AL_LOWPASS_GAINHF`, the level above 5 kHz; 1 = open); several multiply, and
///   multiply any occlusion or bus filter (needs EFX);
/// - ``Property/reverbSend`` — the level of the voice's reverb sends (0…1); several multiply
///   (a positioned voice's sends only, as for ``EnvironmentProperties/sendGain``);
/// - ``Property/priority`` — an offset (−255…255) added to the voice's priority (0 most
///   important … 255 least), the sum clamped to 0…255; several add.
///
/// Between two points the value follows the curve's ``shape``; below the first point it is the
/// first point's value, above the last the last's. Points are in increasing order of their
/// parameter value (1…``maxPoints`` of them).
///
/// ```swift
/// // The "mid" layer of a car engine: silent at idle, loudest at 4000 rpm, gone by 7000.
/// let mid = ParameterCurve(parameter: "rpm", property: .gain,
///                          points: [.init(0, -40), .init(2000, -12), .init(4000, 0), .init(7000, -40)],
///                          shape: .sCurve)
/// print(mid.value(at: 4000))   // 0.0
/// ```
public struct ParameterCurve: Sendable, Equatable {
    /// What a curve drives.
    public enum Property: String, Sendable, Equatable, CaseIterable {
        /// Gain in dB (curves add).
        case gain
        /// A pitch factor (curves multiply).
        case pitch
        /// A low-pass filter's high-frequency gain, 0…1 (curves multiply).
        case lowPass
        /// The reverb sends' level, 0…1 (curves multiply).
        case reverbSend
        /// An offset added to the priority (curves add).
        case priority

        /// The values a curve of this property may take.
        public var valueRange: ClosedRange<Double> {
            switch self {
            case .gain: return -144...24
            case .pitch: return 1.0 / 64...64
            case .lowPass, .reverbSend: return 0...1
            case .priority: return -255...255
            }
        }
    }

    /// How the value moves between two points, as a function of `t` (0 at the left point, 1 at
    /// the right one): `y = y₀ + (y₁ − y₀)·f(t)`.
    public enum Shape: String, Sendable, Equatable, CaseIterable {
        /// `f(t) = t`.
        case linear
        /// `f(t) = (e^(3t) − 1) / (e³ − 1)`: slow at first, fast at the end (a fade that
        /// sounds even in dB when the points are in linear units, a rise that bites late).
        case exponential
        /// `f(t) = 3t² − 2t³` (smoothstep): flat at both points — a crossfade without corners.
        case sCurve
    }

    /// One point: at parameter value `x`, the property has value `y`.
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The parameter's name (as defined with ``AudioEngine/defineParameter(_:)``).
    public var parameter: String
    /// What the curve drives.
    public var property: Property
    /// The points, in strictly increasing order of `x`.
    public var points: [Point]
    /// How the value moves between points (default ``Shape/linear``).
    public var shape: Shape

    /// The most points one curve holds.
    public static let maxPoints = 64
    /// The most curves on one sound, layer or bus.
    public static let maxCurvesPerTarget = 32

    public init(parameter: String, property: Property, points: [Point], shape: Shape = .linear) {
        self.parameter = parameter
        self.property = property
        self.points = points
        self.shape = shape
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` naming the first bad point.
    public func validate() throws(EarshotError) {
        let what = "\(property.rawValue) curve on \"\(parameter)\""
        guard !points.isEmpty, points.count <= Self.maxPoints else {
            throw .invalidArgument("\(what): needs 1…\(Self.maxPoints) points (got \(points.count))")
        }
        let range = property.valueRange
        for (k, p) in points.enumerated() {
            guard p.x.isFinite else {
                throw .invalidArgument("\(what): point \(k + 1) has a parameter value that is not finite")
            }
            guard p.y.isFinite, range.contains(p.y) else {
                throw .invalidArgument("\(what): point \(k + 1) value \(p.y) (must be \(range.lowerBound)…\(range.upperBound))")
            }
            if k > 0, !(p.x > points[k - 1].x) {
                throw .invalidArgument("\(what): point \(k + 1) at \(p.x) does not come after point \(k) at \(points[k - 1].x) (points go in increasing order)")
            }
        }
    }

    /// The property's value at parameter value `x` (the end values outside the points).
    public func value(at x: Double) -> Double {
        Self.evaluate(points, shape, x)
    }

    /// The value of a (valid) point list at `x`: a linear scan, curves are short.
    @inline(__always)
    static func evaluate(_ points: [Point], _ shape: Shape, _ x: Double) -> Double {
        guard let first = points.first else { return 0 }
        if !(x > first.x) { return first.y }
        var k = 1
        while k < points.count, points[k].x < x { k += 1 }
        if k == points.count { return points[k - 1].y }
        let a = points[k - 1], b = points[k]
        // Points a huge span apart overflow to ∞/∞: the left point's value, not NaN.
        let t = (x - a.x) / (b.x - a.x)
        guard t.isFinite else { return a.y }
        let f: Double
        switch shape {
        case .linear: f = t
        case .exponential: f = (exp(3 * t) - 1) / (exp(3.0) - 1)
        case .sCurve: f = t * t * (3 - 2 * t)
        }
        return a.y + (b.y - a.y) * f
    }
}
