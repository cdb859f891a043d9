import Earshot

/// An ambisonic bed of a scene or a bank (`beds:`): an AmbiX or FuMa file of 4, 9 or 16
/// channels (first, second, third order), turned with the listener (see ``AmbisonicBed``).
///
/// ```yaml
/// beds:
///   forest: { file: ambience/forest-foa.wav, gain: -6 dB, lock: world, yaw: 30, start: 0 }
/// ```
public struct SceneBed: Sendable, Equatable {
    public var id: String
    /// The file's path, resolved against the scene's folder.
    public var path: String
    public var format: AmbisonicFormat = .ambix
    /// Linear volume (the file's `gain:` in dB converted).
    public var volume: Float = 1
    /// The bus (`ambience` by default).
    public var bus: String = Bus.ambience.name
    public var lock: AmbisonicBed.Lock = .world
    /// Degrees: 0 puts the recording's front at the scene's −z; positive turns it to the left.
    public var yaw: Float = 0
    /// Scene time at which it starts; nil: it waits for a `{ bed: ID, action: play }` event.
    public var start: Double?

    public init(id: String, path: String) {
        self.id = id
        self.path = path
    }
}

/// What a bed event does (`{ at, bed: ID, action: play|stop, fade: s }` or
/// `{ at, bed: ID, yaw: degrees, ramp: s }`).
public enum SceneBedAction: Sendable, Equatable {
    /// Starts (from where it stopped), fading in over `fade` seconds.
    case play(fade: Double)
    /// Fades out over `fade` seconds (at least 20 ms), then stops.
    case stop(fade: Double)
    /// Turns to `yaw` degrees over `ramp` seconds of playback.
    case yaw(Float, ramp: Double)

    var label: String {
        switch self {
        case .play: return "play"
        case .stop: return "stop"
        case .yaw(let y, _): return "yaw \(y)°"
        }
    }
}
