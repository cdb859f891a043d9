/// Counts that describe the voice pool at one moment.
///
/// `realVoices`, `virtualVoices`, `voiceSources`, `clips` and `clipRestoreBytes` are the state
/// now; the others count events since the engine started. A real voice gives up its source for
/// exactly one of three reasons, each counted once when it is decided (the fade-out follows):
/// ``steals`` (outranked while every source was in use), ``pauses`` (paused) and
/// ``virtualizations`` (too quiet to hear). A request that gets no voice at all is a
/// ``refusals``; a virtual voice ended to make room is an ``evictions``.
///
/// ```swift
/// let s = engine.stats
/// print("\(s.realVoices) real, \(s.virtualVoices) virtual, \(s.steals) steals, \(s.pauses) pauses")
/// print("master \(s.masterLoudness.momentary) LUFS momentary, \(s.masterLoudness.shortTerm) short-term")
/// ```
public struct EngineStats: Sendable, Equatable {
    /// Voices playing on real OpenAL sources.
    public var realVoices: Int
    /// Voices playing without a source (including those waiting for a start delay).
    public var virtualVoices: Int
    /// Real sources of the voice pool.
    public var voiceSources: Int
    /// Real voices whose source was taken for a better-standing voice because every source was
    /// in use, since the engine started. Only this is a steal: pauses, interruptions and voices
    /// too quiet to hear are counted in ``pauses`` and ``virtualizations``.
    public var steals: Int
    /// Real voices that gave up their source because they were paused — the voice itself
    /// (``AudioEngine/setPaused(_:of:)``), its bus, or every bus during an audio-session
    /// interruption — since the engine started. They keep their playhead and come back.
    public var pauses: Int
    /// Real voices that gave up their source because their audibility fell below
    /// ``AudioEngine/Configuration/audibilityFloor`` (gain turned down, moved away), since the
    /// engine started. They play on virtually and get a source back when audible again.
    public var virtualizations: Int
    /// `play` requests refused because the pool was full (the returned voice's status is
    /// ``VoiceStatus/refused``), since the engine started.
    public var refusals: Int
    /// Virtual voices evicted by a better-standing request.
    public var evictions: Int
    /// Virtual voices that won a source back and resumed mid-clip.
    public var resumes: Int
    /// Clips loaded.
    public var clips: Int
    /// Voices a sound's instance limit stopped to make room for a new play
    /// (``SoundDefinition/StealMode/oldest`` and ``SoundDefinition/StealMode/quietest``).
    public var limitSteals: Int = 0
    /// Plays of sounds refused by their instance limit (``SoundDefinition/StealMode/refuse``).
    public var limitRefusals: Int = 0
    /// Plays of sounds that started virtual because of their instance limit
    /// (``SoundDefinition/StealMode/virtual``).
    public var limitHolds: Int = 0
    /// Plays of sounds refused because the sound started less than its cooldown ago.
    public var cooldownRefusals: Int = 0
    /// Real voices playing as a channel pair (a stereo clip without a position: its two channels
    /// on two sources, so that `pan` is a balance): each of them holds two of ``voiceSources``.
    public var pairedVoices: Int = 0
    /// 2D stereo voices that found no second source free and played on one, their image moving
    /// with `pan` instead of a balance, until their next start (since the engine started).
    public var balanceFallbacks: Int = 0
    /// Music-track underruns (a starved source restarted), since the engine started.
    public var musicUnderruns: Int
    /// Bytes of decoded clip samples the engine keeps to upload every clip again after the output
    /// device is lost and reopened (OpenAL cannot hand a buffer's data back).
    public var clipRestoreBytes: Int
    /// Output frames the loopback output limiter turned down (the mix would have exceeded full
    /// scale), since the engine started; 0 on a real device, where OpenAL Soft's own limiter
    /// works (see ``OutputLimiter``).
    public var limitedFrames: Int = 0
    /// The deepest gain reduction the loopback output limiter applied since the engine started,
    /// in dB (0: it never limited; −12: the mix was turned down to a quarter at its loudest).
    public var deepestLimiterReduction: Float = 0
    /// The master's live loudness, as ``AudioEngine/masterLoudness()`` gives it: measured on the
    /// output of a loopback engine that meters it, estimated from the buses elsewhere; −∞ LUFS
    /// for silence and after shutdown. Per bus: ``AudioEngine/loudness(of:)``.
    public var masterLoudness = LiveLoudness(momentary: -.infinity, shortTerm: -.infinity, isEstimate: true)
}

extension AudioEngine {
    /// Counts of the voice pool.
    public var stats: EngineStats {
        let underruns = musicSystem.underrunTotal   // outside withAL: the music lock is never taken inside the AL lock
        let (limitedFrames, deepest) = limiter.withLock { ($0.limitedFrames, $0.deepestReductionDecibels) }
        var stats = withAL {
            let p = core.pool
            let s = p.stats
            let sounds = core.sounds.stats
            var e = EngineStats(realVoices: p.realCount, virtualVoices: p.liveCount - p.realCount,
                               voiceSources: p.sources.count, steals: s.steals, pauses: s.pauses,
                               virtualizations: s.virtualizations, refusals: s.refusals,
                               evictions: s.evictions, resumes: s.resumes, clips: core.loadedClipCount,
                               limitSteals: sounds.limitSteals, limitRefusals: sounds.limitRefusals,
                               limitHolds: sounds.limitHolds, cooldownRefusals: sounds.cooldownRefusals,
                               musicUnderruns: underruns, clipRestoreBytes: core.restoreBytes)
            e.pairedVoices = p.pairedCount
            e.balanceFallbacks = s.balanceFallbacks
            return e
        }
        stats.limitedFrames = limitedFrames
        stats.deepestLimiterReduction = deepest
        if let loudness = try? masterLoudness() { stats.masterLoudness = loudness }   // it throws only for a bus, never here
        return stats
    }
}
