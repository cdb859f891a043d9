import Earshot

/// Where a layer of a timeline sound plays (`delay:`, `clips:`/`select:`, `pitch: { cents }`,
/// `gain: { db }`, `loop:`, `sustain:`, `tail:` of a layer): an Earshot `SoundLayer.Timing` by
/// clip id.
///
/// ```yaml
/// sounds:
///   motor:
///     layers:
///       - { clip: motorStart }
///       - { clip: motorLoop, delay: 1.2, sustain: true }
///       - { clips: [stopA, stopB], select: shuffle, pitch: { cents: 50 }, tail: true }
/// ```
public struct SceneLayerTiming: Sendable, Equatable {
    /// Seconds after the play (a tail: after the sustain loop's end).
    public var delay: Double = 0
    /// Clip ids the layer picks from besides its first (`clips: [a, b, …]`: `b, …`).
    public var alternatives: [String] = []
    public var select: SoundDefinition.Selection = .random
    /// ± cents and ± dB of random variation per play.
    public var pitchCents: Double = 0
    public var gainDB: Double = 0
    /// Its own loop (nil: the sound's).
    public var loop: Bool?
    public var sustain = false
    public var tail = false

    public init() {}
}

/// A switch sound (`switch:` of a sound): the sound of each label of a labelled parameter.
///
/// ```yaml
/// parameters:
///   surface: { labels: [gravel, wood, metal] }
/// sounds:
///   footstep: { switch: { parameter: surface, cases: { gravel: stepGravel, wood: stepWood }, default: stepMetal } }
/// ```
public struct SceneSwitch: Sendable, Equatable {
    public var parameter: String
    /// Label → sound id, in file order.
    public var cases: [(label: String, sound: String)]
    public var defaultSound: String?
    public var follow = false
    /// Cross-fade of a following switch, seconds.
    public var fade = 0.1

    public init(parameter: String, cases: [(label: String, sound: String)], defaultSound: String? = nil) {
        self.parameter = parameter
        self.cases = cases
        self.defaultSound = defaultSound
    }

    /// The sound ids it plays.
    public var soundIDs: [String] { cases.map(\.sound) + (defaultSound.map { [$0] } ?? []) }

    public static func == (a: SceneSwitch, b: SceneSwitch) -> Bool {
        a.parameter == b.parameter && a.cases.elementsEqual(b.cases) { $0 == $1 } && a.defaultSound == b.defaultSound
            && a.follow == b.follow && a.fade == b.fade
    }
}
