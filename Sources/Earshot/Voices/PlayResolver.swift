import Logging

/// The one path from a play request to a voice: every check a play passes, and its conversion to
/// what the voice pool starts (indices, start frame, passes), in one place.
///
/// Every play goes through it, and through each check once: ``AudioEngine/play(_:options:)-(Clip,_)``,
/// ``AudioEngine/play(_:options:)-(Sound,_)`` (its options before the lock, its clip once picked)
/// and a scene's play events (checked against every clip they may play before the scene starts,
/// then played as clips and sounds). So a play one path refuses, every path refuses, with the same
/// ``EarshotError``.
///
/// Its rule needs no engine, so a validator can judge a play before any engine exists, exactly as
/// the engine will:
/// - ``check(_:)``: the ranges of ``PlayOptions`` (finite, not negative, a pan within −1…1, …);
/// - ``startFrame(offset:clipFrames:sampleRate:clipName:)``: where an offset begins in a clip (it
///   must begin inside it);
/// - ``checkPasses(loopCount:clipFrames:clipName:)``: whether every pass of a loop count stays
///   within OpenAL's 32-bit sample offsets.
///
/// ```swift
/// let info = try ClipDecoder.inspect(path: "Assets/Sounds/step.wav")
/// var options = PlayOptions(pan: -0.5)
/// options.offset = 0.05
/// options.loopCount = 2
/// try PlayResolver.check(options)   // what play(_:options:) refuses before it looks at a clip
/// let frames = info.frames ?? 0, rate = Int(info.sampleRate)
/// let start = try PlayResolver.startFrame(offset: options.offset, clipFrames: frames, sampleRate: rate, clipName: "step.wav")
/// try PlayResolver.checkPasses(loopCount: options.loopCount, clipFrames: frames, clipName: "step.wav")
/// print("begins at frame \(start)")
/// ```
///
/// In the engine, the rest runs under the AL lock, in the section that starts the voice: the clip
/// (this engine's, still loaded), the bus (by name, to its index) and the emitter (still there, to
/// its index) — nothing can change between the checks and the start. A new kind of request (a
/// designer bank's event) takes the same steps: its voice's options checked before the lock,
/// then `target` and `resolve` inside it, and the pool starts the `ResolvedPlay`.
public enum PlayResolver {
    // MARK: The rule, without an engine

    /// Throws ``EarshotError/invalidArgument(_:)`` for a value of `options` OpenAL must never see:
    /// a gain, delay, start time, fade-in or offset that is not finite or is negative, a pitch that is not
    /// finite and above 0, a ``PlayOptions/loopCount`` outside 0…``PlayOptions/maxLoopCount`` or
    /// given with ``PlayOptions/loop``, a pan outside −1…1, invalid spatial or environment values.
    public static func check(_ options: PlayOptions) throws(EarshotError) {
        let o = options
        guard o.gain.isFinite, o.gain >= 0 else { throw .invalidArgument("gain \(o.gain) (must be finite and ≥ 0)") }
        guard o.pitch.isFinite, o.pitch > 0 else { throw .invalidArgument("pitch \(o.pitch) (must be finite and > 0)") }
        guard o.delay.isFinite, o.delay >= 0 else {
            throw .invalidArgument("delay \(o.delay) (must be finite and ≥ 0)")
        }
        if let t = o.startTime, !(t.isFinite && t >= 0) {
            throw .invalidArgument("startTime \(t) (an audio time: must be finite and ≥ 0)")
        }
        guard o.fadeIn.isFinite, o.fadeIn >= 0 else {
            throw .invalidArgument("fadeIn \(o.fadeIn) (must be finite and ≥ 0)")
        }
        guard o.offset.isFinite, o.offset >= 0 else {
            throw .invalidArgument("offset \(o.offset) (must be finite and ≥ 0)")
        }
        guard (0...PlayOptions.maxLoopCount).contains(o.loopCount) else {
            throw .invalidArgument("loopCount \(o.loopCount) (must be 0…\(PlayOptions.maxLoopCount))")
        }
        guard !(o.loop && o.loopCount > 0) else {
            throw .invalidArgument("loop and loopCount \(o.loopCount) together (loop repeats until stopped; loopCount a number of times)")
        }
        switch o.placement {
        case .pan(let pan):
            guard pan.isFinite, (-1...1).contains(pan) else { throw .invalidArgument("pan \(pan) (must be in −1…1)") }
        case .spatial(let s):
            guard s.isValid else { throw .invalidArgument("spatial properties \(s) (positions must be finite, angles 0…360, distances ≥ 0)") }
        case .emitter:
            // A sound's distance settings on an emitter (its own, or the play's `distance`).
            if let d = o.soundDistance, !d.isValid {
                throw .invalidArgument("distance settings \(d) (distances must be ≥ 0, rolloff finite and ≥ 0)")
            }
        }
        if let spread = o.spread, !(spread.isFinite && (0...360).contains(spread)) {
            throw .invalidArgument("spread \(spread)° (must be 0…360)")
        }
        guard o.environment.isValid else {
            throw .invalidArgument("environment \(o.environment) (occlusion, obstruction and sendGain 0…1, airAbsorption 0…10)")
        }
    }

    /// The frame where a play `offset` seconds into a clip of `clipFrames` frames at `sampleRate`
    /// begins, or ``EarshotError/invalidArgument(_:)`` when it does not begin inside the clip (an
    /// offset at its end would play nothing). `offset` is a checked one (``check(_:)``): finite, ≥ 0.
    public static func startFrame(offset: Double, clipFrames: Int, sampleRate: Int,
                                  clipName: String) throws(EarshotError) -> Double {
        let startFrame = (offset * Double(sampleRate)).rounded(.down)
        guard startFrame < Double(clipFrames) else {
            let duration = sampleRate > 0 ? Double(clipFrames) / Double(sampleRate) : 0
            throw .invalidArgument("offset \(offset) s is not inside \(clipName) (\(duration) s)")
        }
        return startFrame
    }

    /// The passes of a play with `loopCount` extra passes of a clip of `clipFrames` frames
    /// (`loopCount` + 1), or ``EarshotError/invalidArgument(_:)`` when they exceed OpenAL's 32-bit
    /// sample offsets (2³¹ frames in all). `loopCount` is a checked one (``check(_:)``: 0…1000).
    @discardableResult
    public static func checkPasses(loopCount: Int, clipFrames: Int, clipName: String) throws(EarshotError) -> Int {
        let (passes, o1) = loopCount.addingReportingOverflow(1)
        let (total, o2) = clipFrames.multipliedReportingOverflow(by: passes)
        guard !o1, !o2, total <= Int(Int32.max) else {
            throw .invalidArgument("loopCount \(loopCount) of \(clipName): \(passes) passes exceed OpenAL's 2³¹ frames (loop it and stop it instead)")
        }
        return passes
    }

    // MARK: In the engine (checkRequest before the AL lock, the rest under it)

    /// Checks `options` (``check(_:)``) and that an emitter they follow is this engine's: what a
    /// play can refuse before it takes the lock.
    static func checkRequest(_ options: PlayOptions, link: EngineLink) throws(EarshotError) {
        try check(options)
        if case .emitter(let e) = options.placement, e.link !== link { throw .wrongEngine }
    }

    /// Where a play is heard, resolved to indices. A play of a sound resolves it before its clip
    /// is picked, so that a play that fails here moves neither its selection nor its cooldown on.
    struct Target {
        var busIndex: Int
        var emitterIndex: Int
    }

    /// The bus of `options` as an index (``EarshotError/invalidArgument(_:)`` for a bus never
    /// added), and its emitter's index (the same error for a removed emitter).
    static func target(_ options: PlayOptions, in core: EngineCore) throws(EarshotError) -> Target {
        guard let bus = core.busTable.buses.firstIndex(of: options.bus) else { throw BusTable.noBus(options.bus) }
        var emitterIndex = -1
        if case .emitter(let emitter) = options.placement {
            guard let e = core.pool.emitterIndex(emitter.id) else {
                throw .invalidArgument("the emitter was removed")
            }
            emitterIndex = e
        }
        return Target(busIndex: bus, emitterIndex: emitterIndex)
    }

    /// The play of `clip` with checked `options` (``checkRequest(_:link:)``): the clip must be
    /// this engine's (``EarshotError/wrongEngine``) and loaded (``EarshotError/clipUnloaded``), the
    /// offset must begin inside it and its passes fit (``startFrame(offset:clipFrames:sampleRate:clipName:)``,
    /// ``checkPasses(loopCount:clipFrames:clipName:)``); then the bus and the emitter
    /// (``target(_:in:)``), unless `target` was resolved first (a sound's play).
    static func resolve(_ clip: Clip, options: PlayOptions, target resolved: Target? = nil, in core: EngineCore,
                        logger: Logger, sound: SoundTable.Key = 0, held: Bool = false) throws(EarshotError) -> ResolvedPlay {
        guard clip.engineID == core.engineID else { throw .wrongEngine }
        guard core.isLoaded(clip) else { throw .clipUnloaded }
        let info = clip.info
        // The voice's gain is the play's times the handle's own (a normalised clip, Clip+Gain.swift),
        // kept finite (a checked gain is finite, the handle's at most 16).
        let startFrame = try startFrame(offset: options.offset, clipFrames: info.frameCount,
                                        sampleRate: info.sampleRate, clipName: info.name)
        let passes = try checkPasses(loopCount: options.loopCount, clipFrames: info.frameCount, clipName: info.name)
        let start = options.delay > 0 || options.startTime != nil
            ? core.scheduledStart(delay: options.delay, startTime: options.startTime) : (delay: 0, mixTarget: .nan)
        let target: Target
        if let resolved { target = resolved } else { target = try Self.target(options, in: core) }
        var play = ResolvedPlay(
            clipID: clip.id, buffer: core.clips[Int(clip.id)].buffer, frames: info.frameCount, rate: info.sampleRate,
            startFrame: startFrame, passes: Int32(passes), loop: options.loop,   // 1…1001: checked options
            gain: min(options.gain * clip.gain, .greatestFiniteMagnitude), pitch: options.pitch, priority: options.priority,
            delay: start.delay, mixTarget: start.mixTarget, fadeIn: options.fadeIn,
            busIndex: target.busIndex, placement: .pan, pan: 0, spatial: SpatialProperties(), emitterIndex: -1,
            environment: options.environment, soundKey: sound, held: held)
        play.startAudioTime = core.startAudioTime(delay: start.delay, mixTarget: start.mixTarget)
        play.clipGain = clip.gain
        // 2D: the position or emitter is not used (the voice plays centred).
        let placement = options.spatialMode == .twoD && !options.placement.isPan ? .pan(0) : options.placement
        switch placement {
        case .pan(let p):
            play.pan = p
        case .spatial(let s):
            play.placement = .spatial
            play.spatial = s
        case .emitter:
            play.placement = .emitter
            play.emitterIndex = target.emitterIndex
            if let own = options.soundDistance {
                play.spatial = own
                play.ownDistance = true
            }
        }
        if info.channels == 2 {
            play.stereoImage(options)
            play.channels = core.clips[Int(clip.id)].channels
        }
        return play
    }
}
