import COpenAL

/// The OpenAL constant for each distance model (what `alDistanceModel` is given).
extension DistanceModel {
    var alValue: ALenum {
        switch self {
        case .none: return AL_NONE
        case .inverse: return AL_INVERSE_DISTANCE
        case .inverseClamped: return AL_INVERSE_DISTANCE_CLAMPED
        case .linear: return AL_LINEAR_DISTANCE
        case .linearClamped: return AL_LINEAR_DISTANCE_CLAMPED
        case .exponent: return AL_EXPONENT_DISTANCE
        case .exponentClamped: return AL_EXPONENT_DISTANCE_CLAMPED
        }
    }
}
