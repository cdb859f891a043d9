import Earshot
import Foundation

/// A sound of a scene (`sounds:`): clips picked by a rule, varied, limited and cooled down —
/// what `SoundDefinition` holds, by clip id. A `play:` event may name it like a clip.
///
/// ```yaml
/// sounds:
///   footstep:
///     clips: [step1, step2, step3]
///     select: shuffle
///     pitch: { cents: 50 }
///     gain: { db: 2 }
///     limit: { count: 3, steal: oldest }
///     cooldown: 0.03
/// ```
public struct SceneSound: Sendable, Equatable {
    public var id: String
    /// Clip ids, in order (for `sequence` and `weights`).
    public var clips: [String]
    public var select: SoundDefinition.Selection = .random
    public var weights: [Double]?
    public var avoidRepeat = 0
    /// ± cents of pitch variation.
    public var pitchCents: Double = 0
    /// ± dB of gain variation.
    public var gainDB: Double = 0
    /// The sound's level in dB (`gain: -6`; default 0): `SoundDefinition.gain` as a linear
    /// factor, ``linearLevel``.
    public var levelDB: Double = 0
    /// ``levelDB`` as a linear gain.
    public var linearLevel: Float { Float(pow(10, levelDB / 20)) }
    /// `loudness: -23`: the LUFS its clips are brought to before its own gain and curves
    /// (Conversion/SceneSound+Loudness.swift); nil: played as recorded.
    public var loudness: Double?
    public var limit: SoundDefinition.InstanceLimit?
    public var cooldown: Double = 0
    /// Its default bus (a built-in bus or one under `buses:`).
    public var bus = "sfx"
    public var priority: UInt8 = 128
    public var loop = false
    /// Curves from game parameters (`gain: { parameter: rpm, curve: … }`, …).
    public var curves: [ParameterCurve] = []
    /// The layers of a layered sound (`layers:`; then `clips` is empty).
    public var layers: [SceneLayer] = []
    /// A switch sound's cases (`switch:`; then it has no clips or layers).
    public var switchOn: SceneSwitch?
    /// Whether its layers play on a timeline (some layer has timeline keys).
    public var isTimeline: Bool { layers.contains { $0.timing != nil } }
    /// The distance settings of its positioned plays: its file's defaults (the bank's or the
    /// scene's top-level keys) with its own keys over them — an included bank's sounds keep
    /// their bank's.
    public var attenuation = SceneAttenuation()
    /// `spatial: 2d | 3d` (auto when not given): a point or a stereo clip's image.
    public var spatialMode: SpatialMode = .auto
    /// `spread:` degrees (0…360) of a positioned stereo clip's channels; nil: a point.
    public var spread: Float?

    public init(id: String, clips: [String]) {
        self.id = id
        self.clips = clips
    }
}

/// A snapshot of a scene (`snapshots:`): bus gains in dB (and bus filters) that `snapshot:`
/// events begin and end — an Earshot `Snapshot`.
///
/// ```yaml
/// snapshots:
///   underwater: { buses: { sfx: { gain: -12, filter: { gainHF: 0.1 } }, music: { gain: -6 } } }
/// ```
public struct SceneSnapshot: Sendable, Equatable {
    public var id: String
    /// Bus name → gain in dB, in file order.
    public var gains: [(bus: String, db: Double)]
    /// Bus name → low-pass filter, in file order.
    public var filters: [(bus: String, filter: LowPassFilter)]

    public init(
        id: String, gains: [(bus: String, db: Double)] = [], filters: [(bus: String, filter: LowPassFilter)] = []
    ) {
        self.id = id
        self.gains = gains
        self.filters = filters
    }

    public static func == (a: SceneSnapshot, b: SceneSnapshot) -> Bool {
        a.id == b.id && a.gains.elementsEqual(b.gains) { $0 == $1 } && a.filters.elementsEqual(b.filters) { $0 == $1 }
    }
}

/// A bus of a scene (`buses:`): a built-in one or a new one, its gain, and the buses it ducks
/// while it sounds.
///
/// ```yaml
/// buses:
///   voice: { ducks: { music: { level: -12, attack: 0.1, release: 0.5, threshold: -40 } } }
///   gameplay: { gain: -6 }
///   footsteps: { parent: gameplay, gain: -3 }
/// ```
public struct SceneBus: Sendable, Equatable {
    /// How a bus ducks another (see Earshot's `Ducking`).
    public struct Duck: Sendable, Equatable {
        public var target: String
        /// dB the target goes down by (≤ 0).
        public var level: Double = -12
        public var attack: Double = 0.05
        public var release: Double = 0.5
        /// dBFS above which the bus's level ducks the target.
        public var threshold: Double = -40
        public var hold: Double = 0.1

        public init(target: String) { self.target = target }
    }

    public var name: String
    /// The group bus it is a child of (`parent:`; nil: the master, or unchanged for a built-in bus).
    public var parent: String?
    /// Its gain in dB at the start (nil: unchanged).
    public var gainDB: Double?
    public var ducks: [Duck] = []
    /// Curves from game parameters on every voice of the bus.
    public var curves: [ParameterCurve] = []

    public init(name: String) { self.name = name }

    /// The names of the buses every engine has.
    public static let builtIn = Bus.builtIn.map(\.name)
}

/// One `play:` of a clip or a sound: where, how loud, on which bus, from where in the clip.
public struct ScenePlay: Sendable, Equatable {
    /// A clip's or a sound's id (one namespace).
    public var id: String
    /// A position in 3D, or nil for a non-positional play at `pan`.
    public var position: Vector3?
    public var pan: Float = 0
    /// Linear gain (a sound's: multiplies its own).
    public var gain: Float = 1
    /// Pitch (a sound's: multiplies its own).
    public var pitch: Float = 1
    /// nil: 128 for a clip, the sound's own for a sound.
    public var priority: UInt8?
    /// nil: `sfx` for a clip, the sound's own for a sound.
    public var bus: String?
    /// Seconds into the clip where it begins.
    public var offset: Double = 0
    /// How many more times the clip plays after the first, gaplessly (0…1000).
    public var loops: Int = 0
    /// Degrees between a stereo clip's channels around its position (`spread:`, 0…360; nil: the
    /// sound's, or folded to a point).
    public var spread: Float?

    public init(id: String, position: Vector3? = nil, pan: Float = 0, gain: Float = 1, pitch: Float = 1,
                priority: UInt8? = nil, bus: String? = nil, offset: Double = 0, loops: Int = 0, spread: Float? = nil) {
        self.spread = spread
        self.id = id
        self.position = position
        self.pan = pan
        self.gain = gain
        self.pitch = pitch
        self.priority = priority
        self.bus = bus
        self.offset = offset
        self.loops = loops
    }
}

/// The ids a scene's events may name, by kind (clips and sounds share one namespace).
struct SceneNames {
    var clips: Set<String>
    var sounds: Set<String>
    var buses: Set<String>
    var snapshots: Set<String>
}
