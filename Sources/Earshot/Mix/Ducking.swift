/// Sidechain ducking: how one bus lowers another while it sounds — dialogue on ``Bus/voice``
/// pulling ``Bus/music`` down by 12 dB, then letting it back up.
///
/// Set it with ``AudioEngine/setDucking(_:of:by:)``. It is driven by the **source bus's actual
/// level**, not by a flag: once per ``AudioEngine/update(deltaTime:)`` the engine measures what
/// the source bus plays (``AudioEngine/level(of:)``: the power of every real voice on it, from a
/// level envelope of each clip at the voice's playhead, times the gain it is heard at), and:
///
/// - while that level is above ``threshold`` (dBFS), the target's sidechain gain ramps to
///   ``level`` dB over ``attack`` seconds, linearly in dB;
/// - once the level has stayed below the threshold for ``hold`` seconds, it ramps back to 0 dB
///   over ``release`` seconds.
///
/// Ramps run on the engine clock (samples rendered on a loopback engine) and move at
/// `|level| / attack` and `|level| / release` dB per second, so a release that begins half-way
/// down takes half the release. Changing a ducking that is in force keeps where it is and ramps
/// from there.
///
/// **Combination.** Several sources may duck one target: the lowest factor wins. The sidechain
/// factor is kept apart from the audio session's secondary-audio duck (``AudioSession/duckLevel``)
/// and the lower of the two applies: `effective = bus gain × snapshot × min(session duck,
/// sidechain)`, 0 when muted. Music tracks follow the ``Bus/music`` bus. A bus cannot duck itself.
///
/// Music tracks do not feed a detector (their samples are streamed, not in a clip): a source bus's
/// level is that of its voices. Panning and distance are not taken apart per channel: a voice
/// counts with its audibility (master, bus, voice gain, distance and cone) and its fades.
///
/// ```swift
/// // Dialogue ducks the music by 12 dB while someone speaks.
/// try engine.setDucking(Ducking(level: -12, attack: 0.1, release: 0.4, threshold: -30), of: .music, by: .voice)
/// try engine.setDucking(nil, of: .music, by: .voice)   // and no longer
/// ```
public struct Ducking: Sendable, Equatable {
    /// The gain the target goes down to while ducked, in dB (−120…0; default −12).
    public var level: Double
    /// Seconds the target takes to go down by ``level`` (0…10; default 0.05).
    public var attack: Double
    /// Seconds the target takes to come back from ``level`` (0…10; default 0.5).
    public var release: Double
    /// The source bus's level, in dBFS, above which it ducks the target (−120…0; default −40).
    public var threshold: Double
    /// Seconds the target stays ducked after the source falls below the threshold (0…10; default
    /// 0.1): speech pauses between words do not let the music pump back up.
    public var hold: Double

    /// A ducking; the defaults suit dialogue over music.
    ///
    /// ```swift
    /// let dialogue = Ducking(level: -12, attack: 0.05, release: 0.5, threshold: -40, hold: 0.1)
    /// try engine.setDucking(dialogue, of: .music, by: .voice)
    /// ```
    public init(
        level: Double = -12, attack: Double = 0.05, release: Double = 0.5, threshold: Double = -40, hold: Double = 0.1
    ) {
        self.level = level
        self.attack = attack
        self.release = release
        self.threshold = threshold
        self.hold = hold
    }

    /// Checks every number's range.
    func validate() throws(EarshotError) {
        guard level.isFinite, (-120...0).contains(level) else {
            throw .invalidArgument("ducking level \(level) dB is outside −120…0")
        }
        guard threshold.isFinite, (-120...0).contains(threshold) else {
            throw .invalidArgument("ducking threshold \(threshold) dBFS is outside −120…0")
        }
        for (name, seconds) in [("attack", attack), ("release", release), ("hold", hold)]
        where !(seconds.isFinite && (0...10).contains(seconds)) {
            throw .invalidArgument("ducking \(name) \(seconds) s is outside 0…10")
        }
    }
}
