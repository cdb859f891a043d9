import Foundation

/// A clip handle's own gain: how a loudness-normalised clip (`loudness:` on a clip of a scene or
/// bank) plays at its target on every path — a play of the clip, a sound picking it, a layer, a
/// timeline's part — with one buffer per file however many targets name it.
extension Clip {
    /// The most a clip's gain may be: OpenAL caps a source's gain at 16 (+24.1 dB, the
    /// engine's `AL_MAX_GAIN`), so a larger factor could not be heard.
    public static let maxGain: Float = 16

    /// ``maxGain`` in dB (+24.08).
    public static var maxGainDecibels: Double { 20 * log10(Double(maxGain)) }

    /// This handle with `gain` (linear, 0…``maxGain``): each voice it starts has its play's gain
    /// times `gain` — before a sound's gain, variation and curves, which multiply on top
    /// (``Voice/gain`` reads the product). The buffer is the same: handles with different gains
    /// are not equal, and unloading either unloads the clip.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a gain that is not finite or is outside
    /// 0…``maxGain``.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
    /// let loudness = try ClipLoudness.measure(path: "Assets/Sounds/beep.wav")
    /// let db = loudness.gainDecibels(toward: -23) ?? 0          // nil: a silent clip, left as it is
    /// let normalised = try beep.withGain(Float(pow(10, db / 20)))
    /// _ = try engine.play(normalised)                          // heard at −23 LUFS
    /// ```
    public func withGain(_ gain: Float) throws(EarshotError) -> Clip {
        guard gain.isFinite, (0...Self.maxGain).contains(gain) else {
            throw .invalidArgument(
                "\(info.name): clip gain \(gain) (must be finite and 0…\(Self.maxGain), +\(String(format: "%.1f", Self.maxGainDecibels)) dB)")
        }
        var copy = self
        copy.gain = gain
        return copy
    }
}
