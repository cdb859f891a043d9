/// How distance attenuates a positioned voice: the OpenAL distance models, computed in Swift too.
///
/// The formulas are OpenAL 1.1's (section 3.4). "Clamped" models clamp the distance to
/// `referenceDistance…maxDistance` first. ``gain(distance:referenceDistance:maxDistance:rolloff:)``
/// gives the same factor OpenAL applies, so the engine can rank voices by audibility without
/// asking OpenAL — and the spatial math can be used without OpenAL at all.
///
/// ```swift
/// let g = DistanceModel.inverseClamped.gain(distance: 10, referenceDistance: 1, maxDistance: 1000, rolloff: 1)
/// // g == 0.1 (−20 dB)
/// ```
public enum DistanceModel: String, Sendable, CaseIterable, Codable {
    case none
    case inverse
    case inverseClamped
    case linear
    case linearClamped
    case exponent
    case exponentClamped

    /// The model as 1…7 (for SpatialProperties' packed flags).
    @inlinable var packed: UInt8 {
        switch self {
        case .none: return 1
        case .inverse: return 2
        case .inverseClamped: return 3
        case .linear: return 4
        case .linearClamped: return 5
        case .exponent: return 6
        case .exponentClamped: return 7
        }
    }

    /// The model `packed` stands for (nil for 0).
    @inlinable init?(packed: UInt8) {
        switch packed {
        case 1: self = .none
        case 2: self = .inverse
        case 3: self = .inverseClamped
        case 4: self = .linear
        case 5: self = .linearClamped
        case 6: self = .exponent
        case 7: self = .exponentClamped
        default: return nil
        }
    }

    /// The attenuation factor OpenAL Soft applies at `distance` (1 = none).
    ///
    /// Follows OpenAL Soft exactly: a clamped model whose `maxDistance` is below its
    /// `referenceDistance` does not attenuate at all; the linear model never goes below 0.
    @inlinable @inline(__always)
    public func gain(distance: Float, referenceDistance: Float, maxDistance: Float, rolloff: Float) -> Float {
        var d = distance
        switch self {
        case .none:
            return 1
        case .inverseClamped, .linearClamped, .exponentClamped:
            if maxDistance < referenceDistance { return 1 }
            d = min(max(d, referenceDistance), maxDistance)
        case .inverse, .linear, .exponent:
            break
        }
        switch self {
        case .none:
            return 1
        case .inverse, .inverseClamped:
            guard referenceDistance > 0 else { return 1 }
            let lerped = referenceDistance + rolloff * (d - referenceDistance)
            return lerped > 0 ? referenceDistance / lerped : 1
        case .linear, .linearClamped:
            guard maxDistance != referenceDistance else { return 1 }
            return max(0, 1 - rolloff * (d - referenceDistance) / (maxDistance - referenceDistance))
        case .exponent, .exponentClamped:
            guard d > 0, referenceDistance > 0 else { return 1 }
            return powf(d / referenceDistance, -rolloff)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
