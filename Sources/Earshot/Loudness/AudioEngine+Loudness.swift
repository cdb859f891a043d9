/// Live EBU R128 loudness of a loopback engine's master output (``OutputLoudnessMeter``).
extension AudioEngine {
    /// Measure the master output's loudness as the engine renders (loopback engines; off by
    /// default). Turning it on starts a new measurement; reading it is ``outputLoudness()``.
    /// Throws ``EarshotError/engineShutDown`` after ``shutdown()``.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// try engine.setLoudnessMetering(true)
    /// _ = try engine.render(frames: 48_000)
    /// print(engine.outputLoudness()?.momentary ?? -.infinity)   // LUFS of the last 400 ms
    /// ```
    public func setLoudnessMetering(_ on: Bool) throws(EarshotError) {
        guard !shutDownStarted.load(ordering: .relaxed) else { throw .engineShutDown }
        if on {
            try loudnessMeter.start(sampleRate: sampleRate, channels: outputChannels)
        }
        loudnessMeter.enabled.store(on, ordering: .relaxed)
        if !on { loudnessMeter.stop() }
    }

    /// Whether ``setLoudnessMetering(_:)`` turned the meter on.
    public var isLoudnessMeteringEnabled: Bool { loudnessMeter.enabled.load(ordering: .relaxed) }

    /// The master output's loudness since metering was turned on: momentary (last 400 ms),
    /// short-term (last 3 s), integrated, LRA, their maxima and the sample peak (``LoudnessReading``;
    /// the true peak reads −∞: measure a render for it). Nil while metering is off.
    public func outputLoudness() -> LoudnessReading? { loudnessMeter.reading() }
}
