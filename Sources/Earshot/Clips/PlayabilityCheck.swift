/// The checks that decide whether a file can be played, shared by the engine and by anything that
/// judges a file before an engine loads it (`earshot validate`, the EarshotScenes module), so that
/// a file judged playable is one the engine plays: one checker, two callers. A play of a clip is
/// judged by ``PlayResolver``, the engine's own play path, whose rule needs no engine either.
///
/// ```swift
/// let info = try ClipDecoder.inspect(path: "Assets/Sounds/step.wav")
/// try info.checkLoadable(name: "step.wav")                      // what loadClip would refuse
/// try PlayResolver.checkPasses(loopCount: 3, clipFrames: info.frames ?? 0,
///                              clipName: "step.wav")            // what play would refuse
/// try MusicTrack.checkStreamable(path: "Assets/Music/theme.ogg") // what loadMusic would refuse
/// ```
public enum PlayabilityCheck {
    /// Sample rates a clip may have (``AudioEngine/loadClip(_:name:forPositioning:)``).
    public static let clipSampleRates = 1_000...384_000
}

extension ClipFileInfo {
    /// Throws what ``AudioEngine/loadClip(path:forPositioning:)`` would throw for a file with this
    /// header: ``EarshotError/malformedFile(_:)`` for no audio frames (when the header states its
    /// length) or a sample rate outside ``PlayabilityCheck/clipSampleRates``.
    public func checkLoadable(name: String) throws(EarshotError) {
        if frames == 0 { throw .malformedFile("\(name): no audio frames") }
        let rate = sampleRate.isFinite && abs(sampleRate) < 1e9 ? Int(sampleRate.rounded()) : 0
        guard PlayabilityCheck.clipSampleRates.contains(rate) else {
            throw .malformedFile("\(name): sample rate \(rate) Hz")
        }
    }
}

extension PlayOptions {
    /// The start frame of a play at `offset` seconds with `loopCount` extra passes of a clip of
    /// `clipFrames` frames at `sampleRate`, or ``EarshotError/invalidArgument(_:)``: the offset
    /// must begin inside the clip (an offset at its end plays nothing), and all passes must stay
    /// within OpenAL's 32-bit sample offsets (2³¹ frames). The engine's own rule, in two parts:
    /// ``PlayResolver/startFrame(offset:clipFrames:sampleRate:clipName:)`` and
    /// ``PlayResolver/checkPasses(loopCount:clipFrames:clipName:)``.
    @available(*, deprecated, message: "use PlayResolver.startFrame(offset:clipFrames:sampleRate:clipName:) and PlayResolver.checkPasses(loopCount:clipFrames:clipName:)")
    @discardableResult
    public static func checkTiming(offset: Double, loopCount: Int, clipFrames: Int, sampleRate: Int,
                                   clipName: String) throws(EarshotError) -> Double {
        let startFrame = try PlayResolver.startFrame(offset: offset, clipFrames: clipFrames, sampleRate: sampleRate, clipName: clipName)
        try PlayResolver.checkPasses(loopCount: loopCount, clipFrames: clipFrames, clipName: clipName)
        return startFrame
    }
}

extension MusicTrack {
    /// Throws what ``AudioEngine/loadMusic(path:bus:)`` would throw for the file at `path` (not
    /// streamable: more than two channels, a rate outside 1000…384000 Hz, no frames, not seekable,
    /// an encoding the stream decoders cannot read), opening the file's decoder and closing it.
    public static func checkStreamable(path: String) throws(EarshotError) {
        _ = try MusicDecoders.open(path: path)
    }
}
