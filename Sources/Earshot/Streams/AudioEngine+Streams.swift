/// Plain streams (``AudioStream``).
extension AudioEngine {
    /// Opens a file as an ``AudioStream`` (nothing plays yet): 1…``AudioStream/maxChannels``
    /// channels, on any bus of the engine, positional (mono, following an emitter) or not.
    ///
    /// Throws what ``loadMusic(path:bus:)`` throws, but accepts 1…16 channels:
    /// ``EarshotError/unsupportedEncoding(_:)`` above 16; ``EarshotError/invalidArgument(_:)`` for
    /// a bus the engine does not have, a volume or loop out of range, or an emitter on a stream
    /// that is not mono.
    ///
    /// ```swift
    /// let surround = try engine.openStream(path: "Assets/Music/ambience.wav", options: .init(bus: .music))
    /// try surround.play()
    /// ```
    public func openStream(path: String, options: AudioStream.Options = .init()) throws(EarshotError) -> AudioStream {
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            _ = try core.requireBus(options.bus)
        }
        return try AudioStream(engine: self, path: path, options: options)
    }
}
