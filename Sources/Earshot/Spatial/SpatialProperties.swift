/// Where a sound is, how it moves, which way it points and how distance fades it.
///
/// Shared by ``Emitter``s and by voices placed at a position of their own. All values are in world
/// units (metres) unless ``isRelative`` is set, in which case position, velocity and direction are
/// relative to the listener (head-relative: +x right, +y up, −z ahead).
///
/// The cone follows OpenAL: inside `coneInnerAngle` (full angle, degrees) the gain is 1, outside
/// `coneOuterAngle` it is `coneOuterGain`, linear in between; a zero ``direction`` means
/// omnidirectional.
///
/// ```swift
/// var siren = SpatialProperties(position: Vector3(0, 0, -20))
/// siren.direction = Vector3(0, 0, 1)         // pointing at the listener
/// siren.coneInnerAngle = 60
/// siren.coneOuterAngle = 180
/// siren.coneOuterGain = 0.1
/// ```
public struct SpatialProperties: Sendable, Equatable, CustomStringConvertible {
    /// The distance settings, each of which a ``SpatialProperties`` may set explicitly (see
    /// ``explicitDistance``).
    public struct DistanceFields: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let referenceDistance = DistanceFields(rawValue: 1)
        public static let maxDistance = DistanceFields(rawValue: 2)
        public static let rolloff = DistanceFields(rawValue: 4)
        public static let distanceModel = DistanceFields(rawValue: 8)
        public static let beyondMax = DistanceFields(rawValue: 16)
        public static let curve = DistanceFields(rawValue: 32)
        public static let all: DistanceFields = [
            .referenceDistance, .maxDistance, .rolloff, .distanceModel, .beyondMax, .curve,
        ]
    }

    public var position: Vector3
    public var velocity: Vector3
    /// The direction the sound faces; `.zero` = omnidirectional.
    public var direction: Vector3
    public var coneInnerAngle: Float
    public var coneOuterAngle: Float
    public var coneOuterGain: Float
    /// Distance at which attenuation starts (gain 1).
    public var referenceDistance: Float { didSet { explicitDistance.insert(.referenceDistance) } }
    /// Distance beyond which clamped models stop attenuating (linear models reach their floor),
    /// and past which ``BeyondMax/silent`` silences.
    public var maxDistance: Float { didSet { explicitDistance.insert(.maxDistance) } }
    /// How fast the gain falls with distance (0 = not at all).
    public var rolloff: Float { didSet { explicitDistance.insert(.rolloff) } }
    /// `isRelative` (bit 0), `beyondMax` silent (bit 1), the distance model + 1 (bits 2…4, 0 for
    /// nil): packed, with `curveID` and `explicitDistance`, into the 4 bytes `isRelative` and
    /// padding took before, so that a voice's state (VoiceState, a whole number of cache lines)
    /// keeps its size.
    @usableFromInline var flags: UInt8 = 0
    /// The distance settings given explicitly — as initializer arguments, or set since. Where a
    /// voice plays a ``Sound`` on an ``Emitter``, or at a position given with full properties,
    /// these fields override the sound's and the rest come from the sound: the precedence is a
    /// play's options, then what an emitter sets explicitly, then the sound
    /// (``SoundDefinition/spatial``, which a bank fills from its own defaults), then the engine's.
    /// A clip played on an emitter has no settings of its own and takes all of the emitter's.
    public var explicitDistance: DistanceFields = []
    /// The ``curve``'s row in the curve table (0: none).
    @usableFromInline var curveID: UInt16 = 0

    /// Position, velocity and direction are relative to the listener.
    @inlinable public var isRelative: Bool {
        get { flags & 1 != 0 }
        set { flags = newValue ? flags | 1 : flags & ~1 }
    }
    /// The distance model of these settings; nil (the default): the engine's
    /// (``AudioEngine/Configuration/distanceModel``). A model other than the engine's is computed
    /// by the engine, as a ``curve`` is (OpenAL then applies only the cone).
    @inlinable public var distanceModel: DistanceModel? {
        get { DistanceModel(packed: (flags >> 2) & 7) }
        set {
            flags = (flags & ~(7 << 2)) | (newValue.map { $0.packed } ?? 0) << 2
            explicitDistance.insert(.distanceModel)
        }
    }
    /// What happens past ``maxDistance`` (default ``BeyondMax/hold``, OpenAL's).
    @inlinable public var beyondMax: BeyondMax {
        get { flags & 2 != 0 ? .silent : .hold }
        set {
            flags = newValue == .silent ? flags | 2 : flags & ~2
            explicitDistance.insert(.beyondMax)
        }
    }
    /// A custom rolloff that replaces the distance model, ``referenceDistance`` and ``rolloff``
    /// (nil: none). ``maxDistance`` still bounds it for ``BeyondMax/silent``.
    @inlinable public var curve: AttenuationCurve? {
        get { curveID == 0 ? nil : AttenuationCurve(id: UInt32(curveID)) }
        set {
            curveID = newValue.map { UInt16(truncatingIfNeeded: $0.id) } ?? 0   // ids ≤ maxCurves (4096)
            explicitDistance.insert(.curve)
        }
    }

    /// Properties at `position`; every distance argument given (not nil) counts as explicit
    /// (``explicitDistance``), the others take the defaults: referenceDistance 1, maxDistance
    /// the largest float, rolloff 1, the engine's model, ``BeyondMax/hold``, no curve.
    public init(position: Vector3 = .zero, velocity: Vector3 = .zero, direction: Vector3 = .zero,
                coneInnerAngle: Float = 360, coneOuterAngle: Float = 360, coneOuterGain: Float = 0,
                referenceDistance: Float? = nil, maxDistance: Float? = nil,
                rolloff: Float? = nil, isRelative: Bool = false, distanceModel: DistanceModel? = nil,
                beyondMax: BeyondMax? = nil, curve: AttenuationCurve? = nil) {
        self.position = position
        self.velocity = velocity
        self.direction = direction
        self.coneInnerAngle = coneInnerAngle
        self.coneOuterAngle = coneOuterAngle
        self.coneOuterGain = coneOuterGain
        self.referenceDistance = referenceDistance ?? 1
        self.maxDistance = maxDistance ?? .greatestFiniteMagnitude
        self.rolloff = rolloff ?? 1
        self.isRelative = isRelative
        self.distanceModel = distanceModel
        self.beyondMax = beyondMax ?? .hold
        self.curve = curve
        var given: DistanceFields = []
        if referenceDistance != nil { given.insert(.referenceDistance) }
        if maxDistance != nil { given.insert(.maxDistance) }
        if rolloff != nil { given.insert(.rolloff) }
        if distanceModel != nil { given.insert(.distanceModel) }
        if beyondMax != nil { given.insert(.beyondMax) }
        if curve != nil { given.insert(.curve) }
        self.explicitDistance = given
    }

    /// These properties with the distance settings of `base` in every field this does not set
    /// explicitly (``explicitDistance``); the result's explicit fields are both's.
    public func withDistance(from base: SpatialProperties) -> SpatialProperties {
        let mine = explicitDistance
        if mine == .all { return self }
        var out = self
        if !mine.contains(.referenceDistance) { out.referenceDistance = base.referenceDistance }
        if !mine.contains(.maxDistance) { out.maxDistance = base.maxDistance }
        if !mine.contains(.rolloff) { out.rolloff = base.rolloff }
        if !mine.contains(.distanceModel) { out.distanceModel = base.distanceModel }
        if !mine.contains(.beyondMax) { out.beyondMax = base.beyondMax }
        if !mine.contains(.curve) { out.curve = base.curve }
        out.explicitDistance = mine.union(base.explicitDistance)
        return out
    }

    /// The distance settings of a voice that follows an emitter (`self`) and carries settings
    /// of its own (`voice`: its sound's, with what its play set explicitly): the play's explicit
    /// fields, then the emitter's explicit fields, then the rest of `voice`'s.
    func distance(forVoice voice: SpatialProperties) -> SpatialProperties {
        var out = withDistance(from: voice)
        // `voice.explicitDistance` holds the play's own fields only (the sound's are not marked).
        let play = voice.explicitDistance
        guard !play.isEmpty else { return out }
        if play.contains(.referenceDistance) { out.referenceDistance = voice.referenceDistance }
        if play.contains(.maxDistance) { out.maxDistance = voice.maxDistance }
        if play.contains(.rolloff) { out.rolloff = voice.rolloff }
        if play.contains(.distanceModel) { out.distanceModel = voice.distanceModel }
        if play.contains(.beyondMax) { out.beyondMax = voice.beyondMax }
        if play.contains(.curve) { out.curve = voice.curve }
        return out
    }

    public var description: String {
        "SpatialProperties(position: \(position), velocity: \(velocity), direction: \(direction), cone: \(coneInnerAngle)°/\(coneOuterAngle)° "
            + "outer gain \(coneOuterGain), referenceDistance: \(referenceDistance), maxDistance: \(maxDistance), rolloff: \(rolloff)"
            + (isRelative ? ", relative" : "") + (distanceModel.map { ", model: \($0.rawValue)" } ?? "")
            + (beyondMax == .silent ? ", beyondMax: silent" : "") + (curve.map { ", curve: \($0)" } ?? "") + ")"
    }

    /// Whether every value may be given to OpenAL.
    public var isValid: Bool {
        position.isFinite && velocity.isFinite && direction.isFinite
            && (0...360).contains(coneInnerAngle) && (0...360).contains(coneOuterAngle)
            && (0...1).contains(coneOuterGain)
            && referenceDistance.isFinite && referenceDistance >= 0
            && !maxDistance.isNaN && maxDistance >= 0 && rolloff.isFinite && rolloff >= 0
    }

    /// The cone factor for a listener at `listenerPosition` (OpenAL's rule).
    @inlinable @inline(__always)
    public func coneGain(listenerPosition: Vector3) -> Float {
        guard coneInnerAngle < 360 else { return 1 }
        let dirLength = direction.length
        guard dirLength > 0 else { return 1 }
        let toListener = (isRelative ? .zero : listenerPosition) - position
        let distance = toListener.length
        guard distance > 0 else { return 1 }
        let cosine = max(-1, min(1, direction.dot(toListener) / (dirLength * distance)))
        let angle = acosf(cosine) * (180 / .pi) * 2
        if !(angle > coneInnerAngle) { return 1 }
        if angle < coneOuterAngle {
            let scale = (angle - coneInnerAngle) / (coneOuterAngle - coneInnerAngle)
            return 1 + (coneOuterGain - 1) * scale
        }
        return coneOuterGain
    }

    /// Distance attenuation × cone factor heard by a listener at `listenerPosition`: the part of
    /// audibility that depends on geometry — OpenAL's formula with ``distanceModel`` (or `model`,
    /// the engine's, when nil), or the ``curve``; times ``BeyondMax/silent``'s fade.
    @inlinable @inline(__always)
    public func attenuation(listenerPosition: Vector3, model: DistanceModel) -> Float {
        let distance = ((isRelative ? .zero : listenerPosition) - position).length
        return distanceGain(distance: distance, model: model) * coneGain(listenerPosition: listenerPosition)
    }

    /// The distance gain at `distance` metres: the ``curve``'s, or the distance model's
    /// (``distanceModel``, else `model`), times ``BeyondMax/silent``'s fade past ``maxDistance``.
    @inlinable @inline(__always)
    public func distanceGain(distance: Float, model: DistanceModel) -> Float {
        if hasPlainDistance {
            return model.gain(distance: distance, referenceDistance: referenceDistance, maxDistance: maxDistance, rolloff: rolloff)
        }
        return customDistanceGain(distance: distance, model: model)
    }

    /// ``distanceGain(distance:model:)`` for settings that are not ``hasPlainDistance``: out of
    /// line, so that the common case, inlined in the pool's per-voice and per-emitter loops,
    /// stays as small as 0.8.0's formula.
    @usableFromInline @inline(never)
    func customDistanceGain(distance: Float, model: DistanceModel) -> Float {
        var g: Float
        if let curve {
            g = curve.gain(atDistance: distance)
        } else {
            g = (distanceModel ?? model).gain(distance: distance, referenceDistance: referenceDistance,
                                              maxDistance: maxDistance, rolloff: rolloff)
        }
        if beyondMax == .silent { g *= BeyondMax.silentFactor(distance: distance, maxDistance: maxDistance) }
        return g
    }

    /// Whether the engine computes the distance gain itself (a curve, or a model other than the
    /// engine's `model`): OpenAL is then given rolloff 0.
    @inlinable @inline(__always)
    public func distanceComputedByEngine(model: DistanceModel) -> Bool {
        curve != nil || (distanceModel != nil && distanceModel != model)
    }

    /// No ``curve``, no ``distanceModel`` of their own, ``BeyondMax/hold``: distance is the
    /// engine's model's alone, applied by OpenAL, and the engine adds nothing (the common case,
    /// checked on the packed fields in one go before any of the rest is decoded).
    @inlinable @inline(__always)
    var hasPlainDistance: Bool { curveID == 0 && flags & ~1 == 0 }

    /// ``attenuation(listenerPosition:model:)`` and ``engineDistanceGain(listenerPosition:model:)``
    /// together, from one distance (what an emitter caches for the voices that follow it).
    @inline(__always)
    func attenuationAndEngineGain(listenerPosition: Vector3, model: DistanceModel) -> (attenuation: Float, engine: Float) {
        let distance = ((isRelative ? .zero : listenerPosition) - position).length
        let cone = coneGain(listenerPosition: listenerPosition)
        if hasPlainDistance {
            return (model.gain(distance: distance, referenceDistance: referenceDistance, maxDistance: maxDistance, rolloff: rolloff) * cone, 1)
        }
        let g = distanceGain(distance: distance, model: model)
        let engine = distanceComputedByEngine(model: model) ? g
            : beyondMax == .silent ? BeyondMax.silentFactor(distance: distance, maxDistance: maxDistance) : 1
        return (g * cone, engine)
    }

    /// The part of ``distanceGain(distance:model:)`` OpenAL does not apply, which the engine
    /// multiplies into the voice's gain: all of it when ``distanceComputedByEngine(model:)``,
    /// else ``BeyondMax/silent``'s fade (1 for ``BeyondMax/hold``).
    @inline(__always)
    func engineDistanceGain(listenerPosition: Vector3, model: DistanceModel) -> Float {
        if hasPlainDistance { return 1 }
        let computed = distanceComputedByEngine(model: model)
        guard computed || beyondMax == .silent else { return 1 }
        let distance = ((isRelative ? .zero : listenerPosition) - position).length
        if computed { return distanceGain(distance: distance, model: model) }
        return BeyondMax.silentFactor(distance: distance, maxDistance: maxDistance)
    }
}

#if canImport(Glibc)
import Glibc
#endif
