/// Metering the master output of a loopback engine (``OutputMeter``).
extension AudioEngine {
    /// Meter the master output of a loopback engine (off by default): each render keeps its last
    /// ~50 ms for ``outputMeters()``.
    public var isOutputMeteringEnabled: Bool {
        get { outputMeter.enabled.load(ordering: .relaxed) }
        set {
            if newValue, !outputMeter.enabled.load(ordering: .relaxed) {
                outputMeter.configure(sampleRate: sampleRate, channels: outputChannels)
            }
            outputMeter.enabled.store(newValue, ordering: .relaxed)
        }
    }

    /// Per-channel average (RMS) and peak power in dBFS of the last ~50 ms rendered, computed from
    /// the rendered samples (loopback engines with ``isOutputMeteringEnabled``).
    public func outputMeters() -> MeterReading { outputMeter.reading() }
}
