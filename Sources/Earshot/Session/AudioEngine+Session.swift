extension AudioEngine {
    /// The engine's audio session: the secondary-audio hint and music ducking, interruptions,
    /// route changes and media-services resets (see ``AudioSession``). Created on first use;
    /// inactive until ``AudioSession/activate()``.
    public var session: AudioSession {
        sessionSlot.session(of: self, finished: shutDownStarted.load(ordering: .acquiring))
    }
}

/// The engine's audio session as an ``EngineSubsystem``: the session is made on first use, so the
/// engine holds this slot from the start and the slot passes the engine's life on to the session
/// once there is one — its per-frame duck ramp, route changes on device loss and restoration,
/// and its end at shutdown.
///
/// ```swift
/// let slot = SessionSlot()
/// assert(slot.existing == nil)   // no session until the game asks for one
/// ```
final class SessionSlot: EngineSubsystem {
    private let storage = Locked<AudioSession?>(nil)

    /// The session, if the game has asked for it.
    var existing: AudioSession? { storage.withLock { $0 } }

    /// The session, made now if it is the first time; `finished`: the engine is shutting down,
    /// so a session made now starts with its events finished.
    func session(of engine: AudioEngine, finished: Bool) -> AudioSession {
        storage.withLock { stored in
            if let s = stored { return s }
            let s = AudioSession(engine: engine)
            stored = s
            if finished { s.finishEvents() }   // nothing follows
            return s
        }
    }

    /// The duck ramp moves before the core's frame, so the voices take it in this very frame.
    func beginFrame(_ engine: AudioEngine) {
        existing?.tick(engine: engine)
    }

    func deviceLost(_ engine: AudioEngine) {
        existing?.noteRouteChange(.oldDeviceUnavailable)
    }

    func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration) {
        guard let session = existing else { return }
        if let requested = restoration.fellBackFrom {
            session.noteRouteChange(.fellBackToDefault(requested: requested))
        } else {
            session.noteRouteChange(.newDeviceAvailable)
        }
        session.noteMediaServicesWereReset()
    }

    /// Stops the hint sources (the MPRIS thread) and finishes the session's events.
    func shutdown(_ engine: AudioEngine) {
        guard let session = existing else { return }
        session.deactivate()
        session.finishEvents()
    }
}
