import COpenAL

/// Sound fields (``SoundFieldPlacement``): their sources placed and turned. Stream lock held;
/// the AL functions also under the AL lock.
extension StreamSystem {
    /// Places one part of a sound field (`now`: the stream clock, read before the AL lock): head-relative, without distance attenuation, at the
    /// listener's head (B-format: OpenAL 1.19.1 pans a B-format source that is not at the
    /// listener as a point, `ALu.c` CalcPanningAndFilters) and turned by the field's rotation —
    /// `AL_ORIENTATION` for B-format (which 1.19.1 takes as given for a head-relative source),
    /// the loudspeaker's direction turned for a virtual loudspeaker. Sends only what changed.
    func applyField(_ field: SoundFieldPlacement, to s: QueuedStream, source: ALuint, host: any StreamHost, now: Double) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        if s.state == .playing { field.yaw.thaw(at: now) } else { field.yaw.freeze(at: now) }
        let listener = host.streamListener
        let r = field.rotation(now: now, listenerAt: listener.at, listenerUp: listener.up)
        let sent: [Float]
        if field.isBFormat {
            let at = r.apply(Vector3(0, 0, -1)), up = r.apply(Vector3(0, 1, 0))
            sent = [at.x, at.y, at.z, up.x, up.y, up.z]
        } else {
            let p = r.apply(s.speaker ?? Vector3(0, 0, -1))
            sent = [p.x, p.y, p.z]
        }
        if s.placedField == nil {
            alSourcei(source, AL_SOURCE_RELATIVE, AL_TRUE)
            alSourcef(source, AL_ROLLOFF_FACTOR, 0)
            alSourcef(source, AL_REFERENCE_DISTANCE, 1)
            alSource3f(source, AL_VELOCITY, 0, 0, 0)
            alSource3f(source, AL_DIRECTION, 0, 0, 0)
            alSourcef(source, AL_CONE_INNER_ANGLE, 360)
            alSourcef(source, AL_CONE_OUTER_ANGLE, 360)
            if field.isBFormat { alSource3f(source, AL_POSITION, 0, 0, 0) }
        }
        guard s.placedField != sent else { return }
        sent.withUnsafeBufferPointer { b in
            if field.isBFormat { alSourcefv(source, AL_ORIENTATION, b.baseAddress) } else { alSourcefv(source, AL_POSITION, b.baseAddress) }
        }
        s.placedField = sent
    }

    /// Changes a field (its lock, yaw ramp, pitch, roll) under the stream lock and places its
    /// parts again at once.
    func changeField(_ parts: [QueuedStream], host: any StreamHost, _ change: (SoundFieldPlacement, Double) -> Void) {
        withStreamLock { _ in
            guard let field = parts.first?.field else { return }
            let now = clock(host)
            change(field, now)
            guard !suspended else { return }
            host.withStreamAL {
                guard !host.streamCoreIsShutDown, !host.streamOutputIsGone else { return }
                for s in parts { if let source = s.source { applyField(field, to: s, source: source, host: host, now: now) } }
                ALCheck.after("turning a sound field")
            }
        }
    }
}
