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

    public init(id: String, range: ClosedRange<Double>, defaultValue: Double, seek: Double = 0) {
        self.id = id
        self.range = range
        self.defaultValue = defaultValue
        self.seek = seek
    }

    /// The engine's definition.
    public var definition: ParameterDefinition {
        ParameterDefinition(name: id, range: range, defaultValue: defaultValue, seek: seek)
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

    public init(parameter: String, value: Double, ramp: Double? = nil, of: String? = nil) {
        self.parameter = parameter
        self.value = value
        self.ramp = ramp
        self.of = of
    }
}

extension SceneSound {
    /// The engine's definition of this sound, named by its id — its selection, limits, curves, or its layers —
    /// with its clip ids looked up in `clips` (ids missing there are left out) and `spatial` as
    /// the distance settings of its positioned plays. What a scene (and a bank) makes its sounds
    /// from.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// var clips: [String: Clip] = [:]
    /// for c in scene.clips { clips[c.id] = try engine.loadClip(path: c.path) }
    /// for p in scene.parameters { try engine.defineParameter(p.definition) }
    /// let sounds = try scene.sounds.map { try engine.makeSound($0.definition(clips: clips)) }
    /// ```
    public func definition(clips: [String: Clip], spatial: SpatialProperties = SpatialProperties()) -> SoundDefinition {
        if !layers.isEmpty {
            let made = layers.compactMap { l -> SoundLayer? in
                guard let clip = clips[l.clip] else { return nil }
                return SoundLayer(clip: clip, gain: Float(pow(10, l.gainDB / 20)), pitch: Float(l.pitch), curves: l.curves)
            }
            var d = SoundDefinition(layers: made, curves: curves, loop: loop, limit: limit, cooldown: cooldown, bus: Bus(bus),
                                    priority: priority, spatial: spatial)
            d.name = id
            return d
        }
        var d = SoundDefinition(clips: self.clips.compactMap { clips[$0] }, selection: select, weights: weights,
                                avoidRepeat: avoidRepeat, pitchVariation: pitchCents, gainVariation: gainDB,
                                limit: limit, cooldown: cooldown, bus: Bus(bus), priority: priority, loop: loop, spatial: spatial,
                                name: id)
        d.curves = curves
        return d
    }
}
