import Earshot
import Foundation

/// What a `set:` event changes: an emitter, a music track or a bus, by its id or name.
public enum SceneSetTarget: Sendable, Equatable {
    case emitter(String)
    case music(String)
    case bus(String)

    /// The id or bus name.
    public var name: String {
        switch self {
        case .emitter(let id), .music(let id), .bus(let id): return id
        }
    }

    /// The properties it takes: emitters gain, pitch and occlusion, music tracks gain (their
    /// volume), pan and rate, buses gain.
    public var properties: [SceneChange.Property] {
        switch self {
        case .emitter: return [.gain, .pitch, .occlusion]
        case .music: return [.gain, .pan, .rate]
        case .bus: return [.gain]
        }
    }
}

/// One property and the value it goes to.
public struct SceneChange: Sendable, Equatable {
    public enum Property: String, Sendable, CaseIterable {
        case gain, pitch, pan, rate, occlusion

        /// The values it takes.
        public var range: ClosedRange<Double> {
            switch self {
            case .gain: return 0...16
            case .pitch: return 0.1...4
            case .pan: return -1...1
            case .rate: return 0.5...2
            case .occlusion: return 0...1
            }
        }
    }

    public var property: Property
    public var value: Float

    public init(property: Property, value: Float) {
        self.property = property
        self.value = value
    }
}

/// How a ramp moves from its start value to its end value over its time.
public enum SceneRampCurve: String, Sendable, Equatable, CaseIterable {
    /// A straight line in the value.
    case linear
    /// A straight line in decibels (the default for gain: a fade that sounds even); from or to
    /// silence it moves linearly in dB down to −80 dB and then steps to 0.
    case exponential
    /// Smoothstep: eases out of the start and into the end.
    case sCurve

    /// The value at `progress` (0…1) between `a` and `b`.
    public func value(from a: Float, to b: Float, progress t: Double) -> Float {
        let p = min(1, max(0, t))
        switch self {
        case .linear:
            return a + (b - a) * Float(p)
        case .sCurve:
            let s = p * p * (3 - 2 * p)
            return a + (b - a) * Float(s)
        case .exponential:
            guard p < 1 else { return b }
            let floor = 1e-4   // −80 dB
            let da = 20 * log10(max(Double(a), floor)), db = 20 * log10(max(Double(b), floor))
            let v = pow(10, (da + (db - da) * p) / 20)
            return (b == 0 && v <= floor * 1.0001) ? 0 : Float(v)
        }
    }
}
