extension AudioSession {
    /// Adds an ``MPRISHintSource``: media players on the session D-Bus (at `busAddress`, or
    /// `DBUS_SESSION_BUS_ADDRESS` when nil) feed the hint. Without a bus the source reports
    /// itself unavailable and everything else works as before.
    ///
    /// The system's hint source on Linux; on another platform (or in a test) add a
    /// ``SecondaryAudioHintSource`` of your own with ``addHintSource(_:)``.
    ///
    /// ```swift
    /// engine.session.enableSystemHints()
    /// engine.session.activate()
    /// ```
    @discardableResult
    public func enableSystemHints(busAddress: String? = nil) -> MPRISHintSource {
        let source = MPRISHintSource(busAddress: busAddress)
        addHintSource(source)
        return source
    }
}
