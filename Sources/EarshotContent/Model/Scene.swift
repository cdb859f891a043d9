import Earshot
import Foundation

/// A scene script: a listener, emitters moving along paths, music, one-shots, secondary-audio
/// hints and interruptions on a timeline, loaded from YAML and validated before anything plays.
///
/// Load one with ``load(path:)``; render it with `SceneRenderer` (EarshotScenes) or play it live with
/// `ScenePlayer` (EarshotScenes). Every key of the format is described in `Demos/Scenes/README.md`. A scene with
/// an unknown key, a missing or unreadable clip file, a value of the wrong type or out of range,
/// or an event naming an unknown id is refused with ``SceneError/invalid(file:line:column:key:reason:)``,
/// giving the file, line, column and key.
///
/// ```swift
/// let scene = try Scene.load(path: "Demos/Scenes/orbit.yaml")
/// let result = try SceneRenderer(scene: scene).render(to: "out/orbit.wav")
/// print(result.frames)
/// ```
@dynamicMemberLookup
public struct Scene: Sendable {
    /// The scene file as it was given (used in messages).
    public var file: String
    /// Free text (default: the file's name without extension).
    public var name: String
    /// Seconds rendered or played.
    public var duration: Double
    /// The mixing rate of an offline render, in Hz (default 48000).
    public var sampleRate: Int
    /// HRTF binaural rendering (default false).
    public var hrtf: Bool
    /// The distance model of every positioned voice (default inverseClamped).
    public var distanceModel: DistanceModel
    /// How strongly motion shifts pitch (OpenAL's Doppler factor): 1 is physical, 0 turns the
    /// Doppler effect off. The listener's and every emitter's velocity come from their paths.
    public var dopplerFactor: Float = 1
    /// The speed of sound in metres per second, for the Doppler effect (default 343.3).
    public var speedOfSound: Float = 343.3
    /// The voice budget: real sources and virtual voices (nil: the engine's defaults).
    public var realVoices: Int?
    /// Virtual voices allowed beyond the real ones (nil: the engine's default).
    public var virtualVoices: Int?
    /// The audio-session settings: category and ducking.
    public var session: SceneSessionSettings
    /// What a scene shares with a bank: clips, sounds, buses, snapshots, zones, music and
    /// parameters (its included banks' first), their distance defaults, and where each is defined.
    /// Each is read as the scene's own: `scene.clips`, `scene.sounds`, …
    public var definitions = SceneDefinitions()
    /// Where the listener is, and how it moves.
    public var listener: SceneListener
    /// The listeners after the first (`listeners:`, split screen): each voice is heard from its
    /// nearest (``AudioEngine/listeners``). Empty with `listener:`.
    public var otherListeners: [SceneListener] = []
    /// Emitters, in file order.
    public var emitters: [SceneEmitter]
    /// The timeline, sorted by time (events at the same time keep their file order).
    public var events: [SceneEvent]
    /// The events that run when a named voice ends (`after:`), in file order: each runs every
    /// time that voice ends, ``SceneAfter/delay`` later.
    public var followUps: [SceneFollowUp] = []
    /// The `name:` of each named timed play, by its index in ``events`` (a side table: most
    /// events have none, and a scene may have a million).
    public var playNames: [Int: String] = [:]
    /// The scene's `seed:` (default 0): its jitter and every random choice of its sounds follow
    /// from it, so a scene renders bit-identically each time; another seed, other choices.
    public var seed: UInt64 = 0
    /// The scene's `clipMemory:`: bytes of decoded audio its clips may take together (the
    /// engine's `AudioEngine.Configuration.maxTotalClipBytes`); nil for the engine's default,
    /// 1 GiB. `validate` refuses clips whose headers already add up to more.
    public var clipMemory: Int?
    /// The scene's `limiter:` (ceiling, true peak) for the engine's output limiter; nil for the
    /// engine's default (−0.1 dBFS, sample peak).
    public var limiter: LimiterSettings?
    /// The scene's `dialogue:` line table and locale, for its `say:` events; nil without one.
    public var dialogue: SceneDialogue?

    /// Reads, parses and validates a scene file. Throws the first problem found as
    /// ``SceneError/invalid(file:line:column:key:reason:)`` (or ``SceneError/unreadable(_:)`` when
    /// the scene file itself is missing or cannot be read).
    public static func load(path: String) throws(SceneError) -> Scene {
        try check(path: path).firstProblemThrown(file: path, reason: "invalid scene")
    }

    /// Parses and validates a scene file, collecting every problem (for `earshot validate`).
    public static func check(path: String) -> Result<Scene, SceneProblems> {
        SceneParser.parse(path: path)
    }

    /// Parses and validates YAML text as if it were the file at `path` (clip paths resolve
    /// against `path`'s folder).
    public static func check(yaml: String, path: String) -> Result<Scene, SceneProblems> {
        SceneParser.parse(yaml: yaml, path: path)
    }

    /// The folder relative paths in the scene resolve against.
    public var folder: String { (file as NSString).deletingLastPathComponent }
}

/// Every problem found in one scene file, in file order.
public struct SceneProblems: Error, Sendable, CustomStringConvertible {
    /// The problems, each a ``SceneError/invalid(file:line:column:key:reason:)`` (or one
    /// ``SceneError/unreadable(_:)`` for a scene file that is missing or cannot be read).
    public var problems: [SceneError]
    /// The first problem.
    public var first: SceneError? { problems.first }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension Result where Failure == SceneProblems {
    /// The value, or the first problem thrown (`reason` at the top of `file` when none is listed).
    func firstProblemThrown(file: String, reason: String) throws(SceneError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let problems):
            throw problems.first ?? .invalid(file: file, line: 1, column: 1, key: "", reason: reason)
        }
    }
}

/// A clip of a scene: an id and the audio file it loads (`id: path`, or `id: { file: path,
/// loudness: -23, gain: -3 }`).
public struct SceneClip: Sendable, Equatable {
    public var id: String
    /// The file, resolved against the scene's folder.
    public var path: String
    /// `loudness:` — the LUFS every voice of the clip is brought to (measured as a sound's
    /// `loudness:` measures its clips, Conversion/SceneClip+Loudness.swift); nil: as recorded.
    public var loudness: Double? = nil
    /// `gain:` — dB on top of the normalisation (0 by default).
    public var gainDB: Double = 0
}

/// A music track of a scene. Nothing plays until an event says `action: play`.
public struct SceneMusic: Sendable, Equatable {
    public var id: String
    /// The file, resolved against the scene's folder.
    public var path: String
    /// Track volume 0…`MusicTrack.maxVolume` (+12 dB; default 1).
    public var volume: Float
    /// 0 plays once, n plays n + 1 times, −1 loops until stopped (default 0).
    public var loops: Int
    /// Playback rate 0.5…2 (default 1): the speed, with the pitch kept unless `tape` is set.
    public var rate: Float = 1
    /// The rate moves the pitch too, like a tape (default false: time-stretched, same pitch).
    public var tape = false
    /// The bus it plays on (default `music`): a built-in bus or one under `buses:`.
    public var bus = "music"
    /// The emitter it follows (a mono file, placed and moved with the emitter), or nil.
    public var emitter: String?
    /// Its tempo (`bpm:`, `beatsPerBar:`, `offset:`): the beats and bars the engine reports and
    /// `{ at: { bar: N } }` counts, or nil.
    public var tempo: Tempo?
    /// Its cues (`cues: { drop: 16.0 }`): seconds into the file by name, reported as markers.
    public var cues: [String: Double] = [:]
    /// The region its loops repeat (`loop: { start, end }`, in seconds once read): the file
    /// plays from its start to the loop's end, then the region; nil: the whole file.
    public var loop: MusicLoop?
}

/// The listener: a position or a path, and a fixed orientation.
public struct SceneListener: Sendable, Equatable {
    /// Where the listener is over time.
    public var path: ScenePath
    /// The direction the listener faces (default −z).
    public var at: Vector3
    /// The listener's up (default +y).
    public var up: Vector3
    /// Keyframes of `at` (the listener turns): between two, the direction turns at a steady
    /// angular speed (spherical interpolation), not along the straight line between them.
    /// Empty: `at` is fixed.
    public var atKeys: [Keyframe] = []
    /// Keyframes of `up`, the same way. Empty: `up` is fixed.
    public var upKeys: [Keyframe] = []
    /// The listener faces along its own motion (`facing: path`); `at` is used while it stands still.
    public var facesPath = false
    /// How strongly it claims the voices near it among several listeners (`weight:`, 0…1).
    public var weight: Float = 1

    /// A direction at a scene time.
    public struct Keyframe: Sendable, Equatable {
        public var time: Double
        public var direction: Vector3
    }

    public init(path: ScenePath = .fixed(.zero), at: Vector3 = Vector3(0, 0, -1), up: Vector3 = Vector3(0, 1, 0)) {
        self.path = path
        self.at = at
        self.up = up
    }

    /// Whether anything about the listener changes over time.
    public var changes: Bool { path.moves || atKeys.count > 1 || upKeys.count > 1 || facesPath }

    /// The engine listener at scene time `t`.
    public func listener(at t: Double) -> Listener {
        let velocity = path.velocity(at: t)
        var facing = Self.turn(atKeys, at: t) ?? at
        if facesPath, velocity.length > 1e-6 { facing = velocity.normalized }
        var upward = Self.turn(upKeys, at: t) ?? up
        // Keep up at right angles to at (OpenAL wants an orthogonal pair); along at, fall back
        // to whichever world axis is least along it.
        let f = facing.normalized
        var u = upward - f * upward.dot(f)
        if u.length < 1e-4 {
            upward = abs(f.y) < 0.9 ? Vector3(0, 1, 0) : Vector3(0, 0, 1)
            u = upward - f * upward.dot(f)
        }
        return Listener(position: path.position(at: t), velocity: velocity, at: f, up: u.normalized, weight: weight)
    }

    /// The direction at `t` along `keys` (held before the first and after the last), turning at a
    /// steady angular speed between two; nil without keys.
    static func turn(_ keys: [Keyframe], at t: Double) -> Vector3? {
        guard let first = keys.first, let last = keys.last else { return nil }
        if t <= first.time { return first.direction.normalized }
        if t >= last.time { return last.direction.normalized }
        let (lo, hi) = ScenePath.segment(keys.count, at: t) { keys[$0].time }
        let a = keys[lo].direction.normalized, b = keys[hi].direction.normalized
        let f = Float((t - keys[lo].time) / (keys[hi].time - keys[lo].time))
        let cosine = min(1, max(-1, a.dot(b)))
        let angle = acosf(cosine)
        guard angle > 1e-5 else { return a }
        if angle > .pi - 1e-4 {
            // Opposite directions: turn through a direction at right angles (about up when it can).
            let axis = abs(a.y) < 0.9 ? Vector3(0, 1, 0) : Vector3(1, 0, 0)
            let side = axis.cross(a).normalized
            let phi = f * .pi
            return a * cosf(phi) + side * sinf(phi)
        }
        let s = sinf(angle)
        return a * (sinf((1 - f) * angle) / s) + b * (sinf(f * angle) / s)
    }
}

/// How distance attenuates a positioned sound, with the scene's ``Scene/distanceModel``
/// (OpenAL's formulas; `d` is the distance, clamped to `referenceDistance…maxDistance` by the
/// clamped models):
///
/// - `inverse`: `referenceDistance / (referenceDistance + rolloff · (d − referenceDistance))`
/// - `linear`: `1 − rolloff · (d − referenceDistance) / (maxDistance − referenceDistance)`, never
///   below 0 — silent at `maxDistance` with rolloff 1
/// - `exponent`: `(d / referenceDistance) ^ −rolloff`
///
/// Validated: `maxDistance` > `referenceDistance` > 0, `rolloff` ≥ 0. A sound, an emitter or
/// the file's top level may also give a `model` (another distance model than the engine's),
/// `beyondMax` (`hold`, or `silent` past `maxDistance`) and a `curve` (dB by distance, which
/// replaces the model).
///
/// ```swift
/// var near = SceneAttenuation()
/// near.referenceDistance = 2
/// near.maxDistance = 30
/// DistanceModel.linearClamped.gain(distance: 16, referenceDistance: near.referenceDistance,
///                                  maxDistance: near.maxDistance, rolloff: near.rolloff)   // 0.5
/// ```
public struct SceneAttenuation: Sendable, Equatable {
    /// Where attenuation starts, metres (default 1).
    public var referenceDistance: Float = 1
    /// Where it stops (clamped models) or reaches silence (linear), metres (default: none).
    public var maxDistance: Float = .greatestFiniteMagnitude
    /// How fast it falls (default 1; 0 does not attenuate).
    public var rolloff: Float = 1
    /// The distance model (`model:`); nil: the engine's (the scene's `distanceModel`).
    public var model: DistanceModel?
    /// What happens past `maxDistance` (`beyondMax:`, default `hold`).
    public var beyondMax: BeyondMax = .hold
    /// A custom rolloff (`curve:`) that replaces the model; nil: none.
    public var curve: AttenuationCurve?
    /// The settings the mapping they were read from gave itself (an emitter's own keys): those
    /// override a sound's when the sound plays on the emitter.
    public var explicit: SpatialProperties.DistanceFields = []

    /// The defaults: attenuation from 1 m, rolloff 1, no maximum, the scene's distance model.
    public init() {}
}

/// Where a scene's emitter points.
public enum SceneFacing: Sendable, Equatable {
    /// Nowhere in particular: omnidirectional (a cone has no effect).
    case none
    /// A fixed direction.
    case direction(Vector3)
    /// Along its own motion (a car's horn points where it drives).
    case path
}

/// An emitter's sound cone, in degrees (full angles) and linear gain.
public struct SceneCone: Sendable, Equatable {
    public var inner: Float
    public var outer: Float
    public var outerGain: Float
}

/// An emitter of a scene: a clip that starts at `start`, heard from a fixed position or a path.
public struct SceneEmitter: Sendable, Equatable {
    public var id: String
    /// The id of the clip it plays, or of a sound (its selection, variation and limit apply).
    public var clip: String
    /// Loop until stopped (default false: plays once).
    public var loop: Bool
    /// Linear gain (default 1).
    public var gain: Float
    /// Playback rate (default 1).
    public var pitch: Float
    /// 0 most important … 255 least (default 128).
    public var priority: UInt8
    /// Scene time at which it starts, in seconds (default 0).
    public var start: Double
    /// Where it is over scene time.
    public var path: ScenePath
    /// `occlusion:`, `obstruction:`, `airAbsorption:` and `sends:` (the reverb send level).
    public var environment: EnvironmentProperties = .open
    /// Its distance attenuation (the scene's, with this emitter's own keys over it).
    public var attenuation = SceneAttenuation()
    /// Degrees between a stereo clip's channels around the emitter (`spread:`, 0…360; nil: its
    /// sound's, or folded to a point).
    public var spread: Float?
    /// Where it points, for its cone: a fixed direction, or `.path` (along its own motion).
    public var facing: SceneFacing = .none
    /// Its cone (OpenAL's: full gain inside `inner` degrees, `outerGain` outside `outer`, linear
    /// between); nil is omnidirectional.
    public var cone: SceneCone?

    /// Its spatial properties at scene time `t`: position and velocity from its path, its
    /// attenuation, and its direction and cone.
    public func spatial(at t: Double) -> SpatialProperties {
        var p = attenuation.spatial(position: path.position(at: t), velocity: path.velocity(at: t))
        switch facing {
        case .none: break
        case .direction(let d): p.direction = d
        case .path:
            let v = p.velocity
            // Standing still (or before a path starts), it keeps facing where its path first goes.
            let along = v.length > 1e-6 ? v : path.velocity(at: max(0, t) + 1e-3)
            p.direction = along.length > 1e-6 ? along * (1 / along.length) : .zero
        }
        if let cone {
            p.coneInnerAngle = cone.inner
            p.coneOuterAngle = cone.outer
            p.coneOuterGain = cone.outerGain
        }
        return p
    }
}

/// The audio-session settings of a scene.
public struct SceneSessionSettings: Sendable, Equatable {
    /// The session category (the app's intent).
    public enum Category: String, Sendable, CaseIterable {
        /// Mixes with other apps' audio.
        case ambient
        /// The default: other audio is silenced when the game plays.
        case soloAmbient
        /// Audio is the core feature.
        case playback
    }

    /// How the music bus is ducked while the secondary-audio hint is raised.
    public struct Ducking: Sendable, Equatable {
        /// The ducked gain in dB (nil: silent).
        public var levelDB: Double?
        /// Seconds to ramp down when the hint begins.
        public var attack: Double
        /// Seconds to ramp back up when the hint ends.
        public var release: Double

        public init(levelDB: Double? = nil, attack: Double = 0.1, release: Double = 0.5) {
            self.levelDB = levelDB
            self.attack = attack
            self.release = release
        }

        /// The ducked linear gain (0 for silent).
        public var linearLevel: Float {
            guard let levelDB else { return 0 }
            return Float(pow(10, levelDB / 20))
        }
    }

    public var category: Category
    public var ducking: Ducking

    public init(category: Category = .soloAmbient, ducking: Ducking = Ducking()) {
        self.category = category
        self.ducking = ducking
    }
}
