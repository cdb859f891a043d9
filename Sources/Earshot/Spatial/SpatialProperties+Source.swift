import COpenAL

extension SpatialProperties {
    /// Sets on OpenAL source `source` every property that differs from `old` (all of them when
    /// `old` is nil): a voice's source and a track following an emitter push their placement the
    /// same way, sending only what changed. The caller holds the AL lock.
    @inline(__always)
    func apply(to source: ALuint, since old: SpatialProperties?) {
        if old?.isRelative != isRelative { alSourcei(source, AL_SOURCE_RELATIVE, isRelative ? AL_TRUE : AL_FALSE) }
        if old?.position != position { alSource3f(source, AL_POSITION, position.x, position.y, position.z) }
        if old?.velocity != velocity { alSource3f(source, AL_VELOCITY, velocity.x, velocity.y, velocity.z) }
        if old?.direction != direction { alSource3f(source, AL_DIRECTION, direction.x, direction.y, direction.z) }
        if old?.coneInnerAngle != coneInnerAngle { alSourcef(source, AL_CONE_INNER_ANGLE, coneInnerAngle) }
        if old?.coneOuterAngle != coneOuterAngle { alSourcef(source, AL_CONE_OUTER_ANGLE, coneOuterAngle) }
        if old?.coneOuterGain != coneOuterGain { alSourcef(source, AL_CONE_OUTER_GAIN, coneOuterGain) }
        if old?.referenceDistance != referenceDistance { alSourcef(source, AL_REFERENCE_DISTANCE, referenceDistance) }
        if old?.maxDistance != maxDistance { alSourcef(source, AL_MAX_DISTANCE, maxDistance) }
        if old?.rolloff != rolloff { alSourcef(source, AL_ROLLOFF_FACTOR, rolloff) }
    }
}
