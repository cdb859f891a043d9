import Earshot
import Foundation

/// A clip's `loudness:` and `gain:` (`clips: { id: { file:, loudness: -23, gain: -3 } }`): the
/// gain its handle carries (``Clip/withGain(_:)``), so every voice of it — a play of the clip, a
/// sound picking it, a layer, a timeline's part — starts at the target before its own gains and
/// curves. Measured as a sound's `loudness:` measures its clips (``ClipLoudness``: integrated, or
/// max momentary under 3 s), once per file.
extension SceneClip {
    /// The measured loudness and the dB the normalisation adds (nil without `loudness:`; a
    /// silent file is measured as nil LUFS and left as it is, 0 dB). Throws what measuring throws.
    public func normalisation() throws(EarshotError) -> (measured: ClipLoudness, decibels: Double)? {
        guard let target = loudness else { return nil }
        let measured = try ClipLoudness.measure(path: path)
        return (measured, measured.gainDecibels(toward: target) ?? 0)
    }

    /// The dB every voice of the clip starts at: its normalisation plus its `gain:`.
    public func playDecibels() throws(EarshotError) -> Double {
        try (normalisation()?.decibels ?? 0) + gainDB
    }

    /// Why the clip cannot play as written (its gain over ``Clip/maxGain``), or nil.
    public func gainProblem() throws(EarshotError) -> String? {
        let db = try playDecibels()
        guard db > Clip.maxGainDecibels + 1e-6 else { return nil }
        let measured = try normalisation().map { "measures \(LoudnessReading.lufs($0.measured.lufs)); reaching \(LoudnessReading.lufs(loudness)) " } ?? ""
        return String(format: "%@needs %+.1f dB%@, more than the %+.1f dB a voice can be raised (OpenAL's source gain limit, Clip.maxGain)",
                      measured, db, gainDB != 0 ? String(format: " with its gain %+.1f dB", gainDB) : "", Clip.maxGainDecibels)
    }

    /// `clip` (this clip, loaded) with the gain its voices start at. Throws
    /// ``EarshotError/invalidArgument(_:)`` when that gain is over ``Clip/maxGain`` (the file
    /// changed since the scene was checked), or what measuring throws.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// for c in scene.clips { _ = try c.handle(engine.loadClip(path: c.path)) }
    /// ```
    public func handle(_ clip: Clip) throws(EarshotError) -> Clip {
        guard loudness != nil || gainDB != 0 else { return clip }
        if let problem = try gainProblem() { throw .invalidArgument("clip \(id): \(problem)") }
        return try clip.withGain(min(Float(pow(10, try playDecibels() / 20)), Clip.maxGain))
    }

    /// The dB each clip of `clips` plays at, by id (only those not at 0 dB): what a sound's
    /// `loudness:` measures its clips with (SceneSound+Loudness.swift).
    public static func playDecibels(_ clips: [SceneClip]) throws(EarshotError) -> [String: Double] {
        var out: [String: Double] = [:]
        for c in clips where (c.loudness != nil || c.gainDB != 0) && out[c.id] == nil {
            out[c.id] = try c.playDecibels()
        }
        return out
    }
}
