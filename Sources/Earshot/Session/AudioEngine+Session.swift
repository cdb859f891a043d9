extension AudioEngine {
    /// The engine's audio session: the secondary-audio hint and music ducking, interruptions,
    /// route changes and media-services resets (see ``AudioSession``). Created on first use;
    /// inactive until ``AudioSession/activate()``.
    public var session: AudioSession {
        sessionStorage.withLock { stored in
            if let s = stored { return s }
            let s = AudioSession(engine: self)
            stored = s
            if shutDownStarted.load(ordering: .acquiring) { s.finishEvents() }   // nothing follows
            return s
        }
    }

    /// The session's per-frame step (the `// session tick` line of ``update(deltaTime:)``);
    /// nothing when no session was ever asked for.
    func sessionTick() {
        guard let s = sessionStorage.withLock({ $0 }) else { return }
        s.tick(engine: self)
    }
}
