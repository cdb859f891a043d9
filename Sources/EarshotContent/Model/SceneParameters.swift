import Foundation
import Earshot

/// A game parameter of a scene (`parameters:`): an Earshot `ParameterDefinition`.
///
/// ```yaml
/// parameters:
///   rpm: { range: [0, 8000], default: 800, seek: 4000 }
/// ```
public struct SceneParameter: Sendable, Equatable {
    public var id: String
    public var range: ClosedRange<Double>
    public var defaultValue: Double
    /// Units per second (0: a set value is taken at once).
    public var seek: Double
    /// The labels of a labelled parameter (`labels: [gravel, wood]`; value k is labels[k]).
    public var labels: [String] = []

    public init(id: String, range: ClosedRange<Double>, defaultValue: Double, seek: Double = 0) {
        self.id = id
        self.range = range
        self.defaultValue = defaultValue
        self.seek = seek
    }
}

/// One layer of a layered sound (`layers:` of a sound): an Earshot `SoundLayer` by clip id.
///
/// ```yaml
/// sounds:
///   car: { layers: [ { clip: idle, gain: { parameter: rpm, curve: [[800, 0], [3000, -40]] } },
///                    { clip: high, gain: -3, pitch: 1.5 } ] }
/// ```
public struct SceneLayer: Sendable, Equatable {
    public var clip: String
    /// Its own gain in dB (0: as recorded).
    public var gainDB: Double = 0
    /// Its own pitch factor.
    public var pitch: Double = 1
    /// Its curves (on top of the sound's).
    public var curves: [ParameterCurve] = []
    /// Its place on a timeline (`delay:`, `sustain:`, …; nil: none).
    public var timing: SceneLayerTiming?

    public init(clip: String) { self.clip = clip }
}

/// A `set:` event on a game parameter: `{ at: T, set: { parameter: rpm, value: 6000, ramp: 3, of: car1 } }`.
public struct SceneParameterSet: Sendable, Equatable {
    public var parameter: String
    public var value: Double
    /// Seconds the move takes (nil: at the parameter's seek speed; 0: at once).
    public var ramp: Double?
    /// A named play (`name:`) or an emitter whose own value it sets; nil: the global value.
    public var of: String?
    /// The label a labelled parameter is set to (`value: wood`; ``value`` is its index).
    public var label: String?

    public init(parameter: String, value: Double, ramp: Double? = nil, of: String? = nil) {
        self.parameter = parameter
        self.value = value
        self.ramp = ramp
        self.of = of
    }
}

