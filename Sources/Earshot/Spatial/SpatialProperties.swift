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
public struct SpatialProperties: Sendable, Equatable {
    public var position: Vector3
    public var velocity: Vector3
    /// The direction the sound faces; `.zero` = omnidirectional.
    public var direction: Vector3
    public var coneInnerAngle: Float
    public var coneOuterAngle: Float
    public var coneOuterGain: Float
    /// Distance at which attenuation starts (gain 1).
    public var referenceDistance: Float
    /// Distance beyond which clamped models stop attenuating (linear models reach their floor).
    public var maxDistance: Float
    /// How fast the gain falls with distance (0 = not at all).
    public var rolloff: Float
    /// Position, velocity and direction are relative to the listener.
    public var isRelative: Bool

    public init(position: Vector3 = .zero, velocity: Vector3 = .zero, direction: Vector3 = .zero,
                coneInnerAngle: Float = 360, coneOuterAngle: Float = 360, coneOuterGain: Float = 0,
                referenceDistance: Float = 1, maxDistance: Float = .greatestFiniteMagnitude,
                rolloff: Float = 1, isRelative: Bool = false) {
        self.position = position
        self.velocity = velocity
        self.direction = direction
        self.coneInnerAngle = coneInnerAngle
        self.coneOuterAngle = coneOuterAngle
        self.coneOuterGain = coneOuterGain
        self.referenceDistance = referenceDistance
        self.maxDistance = maxDistance
        self.rolloff = rolloff
        self.isRelative = isRelative
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
    /// audibility that depends on geometry, computed as OpenAL Soft computes it.
    @inlinable @inline(__always)
    public func attenuation(listenerPosition: Vector3, model: DistanceModel) -> Float {
        let distance = ((isRelative ? .zero : listenerPosition) - position).length
        return model.gain(distance: distance, referenceDistance: referenceDistance,
                          maxDistance: maxDistance, rolloff: rolloff)
            * coneGain(listenerPosition: listenerPosition)
    }
}

#if canImport(Glibc)
import Glibc
#endif
