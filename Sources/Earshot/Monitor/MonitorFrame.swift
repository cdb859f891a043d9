/// One `frame` line of the monitor protocol: the engine's state at one game frame, and what
/// happened since the previous frame (see the MonitorProtocol article for every field).
///
/// Sections marked "present when the engine has them" are absent (nil) from engines without that
/// feature: a reader treats a missing section as "not there", never as an error.
///
/// ```swift
/// func loudest(_ frame: MonitorFrame) -> String? {
///     frame.voices.max { $0.audibilityDB < $1.audibilityDB }?.name
/// }
/// ```
public struct MonitorFrame: Codable, Sendable, Equatable {
    public var type = "frame"
    /// Counts frames sent since the monitor started (a gap: frames skipped for a slow client).
    public var seq: Int
    /// Seconds since the monitor started (monotonic clock).
    public var time: Double
    public var engine: Engine
    /// The voices, real first; at most ``MonitorProtocol/maxVoiceRows``.
    public var voices: [VoiceRow]
    /// Live voices left out of ``voices`` (beyond ``MonitorProtocol/maxVoiceRows``).
    public var voicesOmitted: Int
    public var buses: [BusRow]
    /// The active snapshots, in begin order.
    public var snapshots: [SnapshotRow]
    /// Game parameters' global values (``AudioEngine/parameter(_:)``), in definition order, at
    /// most 256. Present when the game has defined some.
    public var parameters: [ParameterRow]?
    public var music: Music
    /// Reverb zones heard from the listener's place now.
    public var zones: [ZoneRow]
    /// Each room whose reverb rings now, as the listener hears it: the listener's room first,
    /// then the other rooms that voices feed. Present when a geometry is set.
    public var roomReverbs: [RoomReverbRow]? = nil
    /// The audio session; nil until the game made one.
    public var session: Session?
    /// What happened since the previous frame, oldest first.
    public var events: [EventRow]
    /// Events lost because more than ``MonitorProtocol/maxEvents`` happened between two frames.
    public var eventsDropped: Int

    public struct Engine: Codable, Sendable, Equatable {
        /// The output device's name.
        public var output: String
        public var sampleRate: Int
        /// ``AudioEngine/audioTime`` at the frame.
        public var audioTime: Double
        /// CPU milliseconds of the last ``AudioEngine/update(deltaTime:)`` (the engine's part of the
        /// game frame, measured on the game's thread).
        public var updateMs: Double
        /// CPU milliseconds of the last ``AudioEngine/render(into:)`` on a loopback engine; nil on
        /// a device (OpenAL Soft mixes on its own thread).
        public var renderMs: Double?
        /// Game frames since the previous monitor frame.
        public var updates: Int
        /// CPU milliseconds the monitor took on the game's thread to copy this frame's state
        /// (included in ``updateMs`` of the frame it was taken in; none in the others).
        public var monitorMs: Double
        public var realVoices: Int
        public var virtualVoices: Int
        /// Sources of the voice pool not holding a voice.
        public var freeSources: Int
        public var voiceSources: Int
        /// Totals since the engine started (``EngineStats``).
        public var steals: Int
        public var refusals: Int
        public var limiter: Limiter
        /// Whether the output device is lost (voices play on virtually until it is back).
        public var deviceLost: Bool
        /// The master's estimated momentary and short-term loudness, LUFS: the sum of every bus's
        /// estimate (``AudioEngine/masterLoudness()`` measures the output instead when a
        /// loopback engine meters it). Floored at ``MonitorProtocol/silenceDecibels``; nil in
        /// frames from engines before it.
        public var masterMomentaryLUFS: Double? = nil
        public var masterShortTermLUFS: Double? = nil
    }

    public struct Limiter: Codable, Sendable, Equatable {
        /// Output frames turned down since the engine started (loopback; 0 on a device).
        public var limitedFrames: Int
        /// The deepest reduction so far, dB (0: never).
        public var deepestDB: Double
        /// Whether it turned anything down since the previous monitor frame.
        public var active: Bool
    }

    public struct VoiceRow: Codable, Sendable, Equatable {
        /// The voice's identity in the engine (stable for the voice's life).
        public var id: String
        /// The sound's name (``SoundDefinition/name``: a bank's or scene's id), else the clip's.
        public var name: String
        /// The file name of the clip it plays (the variation picked, or the layer's clip).
        public var clip: String
        /// The sound the voice plays, when played from a ``Sound`` (a layer's: the layered sound's).
        public var sound: String?
        public var bus: String
        /// `real`, `virtual`, `paused` or `pending` (waiting for its start time).
        public var state: String
        /// The voice's own gain (``Voice/gain``), dB.
        public var gainDB: Double
        /// How loud it is heard (gain × bus × distance × cone × fades, as the pool ranks it), dB.
        public var audibilityDB: Double
        /// Metres from the listener; nil for a voice that is not positioned.
        public var distance: Double?
        /// [x, y, z]; nil for a voice that is not positioned.
        public var position: [Double]?
        /// Seconds since it started (negative while pending).
        public var age: Double
        /// Which of the sound's clips this play picked, from 1, of ``variations`` (random,
        /// shuffle or sequence); absent for a clip played directly and for a layer.
        public var variation: Int?
        /// How many clips the sound picks from.
        public var variations: Int?
        /// For a layer of a layered sound: which layer it is, from 1, of ``layers``. Every layer
        /// is a row of its own, named after the sound.
        public var layer: Int?
        /// How many layers the sound has.
        public var layers: Int?
        /// For a layer after the first: the ``id`` of the voice the game holds (the first
        /// layer's row), the one its layers are under.
        public var leader: String?
        /// Its way through the rooms (absent with no geometry, or for a voice not positioned).
        public var room: RoomRow? = nil
    }

    /// A positioned voice's way through the rooms and portals (``AudioEngine/propagation(of:)``).
    public struct RoomRow: Codable, Sendable, Equatable {
        /// The voice's room and the listener's (absent: outside).
        public var room: String?
        public var listenerRoom: String?
        /// `direct`, `portals` or `walls`.
        public var via: String
        /// The portal ids of the way, the voice's side first.
        public var path: [String]
        /// The length of the way heard, metres.
        public var length: Double
        /// The portal path's diffraction and openness loss, and the walls' loss, dB (≤ 0).
        public var diffractionDB: Double
        public var opennessDB: Double
        public var transmissionDB: Double
    }

    public struct BusRow: Codable, Sendable, Equatable {
        public var name: String
        /// The bus's own gain (``AudioEngine/gain(for:)``), dB.
        public var gainDB: Double
        /// master × gain × snapshot × duck × VCAs along its path in the bus tree
        /// (``AudioEngine/effectiveGain(for:)``), dB.
        public var effectiveDB: Double
        public var paused: Bool
        public var muted: Bool
        /// Held by the game (its pause or ``AudioEngine/pauseAll(except:)``).
        public var held: Bool
        /// ``AudioEngine/level(of:)``, dBFS.
        public var levelDBFS: Double
        /// The lower of the session's duck and the sidechain ducking, dB (0: not ducked).
        public var duckDB: Double
        /// The active snapshots' factor on it, dB.
        public var snapshotDB: Double
        /// The group bus it is a child of (nil: the master); the rows come in bus order, so a
        /// group is listed before its children.
        public var parent: String? = nil
        /// The product of its VCAs' gains, dB (0: in no VCA, or at unity).
        public var vcaDB: Double? = nil
        /// Estimated momentary (400 ms) loudness, LUFS (``AudioEngine/loudness(of:)``), floored at
        /// ``MonitorProtocol/silenceDecibels``; nil in frames from engines before it.
        public var momentaryLUFS: Double? = nil
        /// Estimated short-term (3 s) loudness, LUFS, floored likewise; nil in older frames.
        public var shortTermLUFS: Double? = nil
    }

    public struct SnapshotRow: Codable, Sendable, Equatable {
        public var name: String
        /// Its weight now, 0…1 (fading in or out, times its intensity).
        public var intensity: Double
        /// ``AudioEngine/end(_:fade:)`` was called: it is fading out.
        public var ending: Bool
    }

    public struct ParameterRow: Codable, Sendable, Equatable {
        public var name: String
        public var value: Double
        public init(name: String, value: Double) {
            self.name = name
            self.value = value
        }
    }

    public struct Music: Codable, Sendable, Equatable {
        public var tracks: [TrackRow]
        /// The adaptive music sets (``MusicSet``) and the state each is in. Present when the game
        /// made some.
        public var sets: [MusicSetRow]?
    }

    /// One ``MusicSet``'s state machine.
    public struct MusicSetRow: Codable, Sendable, Equatable {
        public var name: String
        /// ``MusicSet/currentState`` (nil before it plays and after it stops).
        public var state: String?
        /// The state a pending change goes to (``MusicSet/pendingState``), and its audio time.
        public var next: String?
        public var nextAt: Double?
    }

    public struct TrackRow: Codable, Sendable, Equatable {
        /// The file's name (its last path component).
        public var name: String
        public var bus: String
        /// `playing`, `paused` or `idle`.
        public var state: String
        /// Seconds into the file.
        public var position: Double
        public var duration: Double
        public var volume: Double
        /// Beats per minute, when the track has a ``Tempo``.
        public var bpm: Double?
        /// The bar (from 1) and beat in the bar (from 1) at ``position``, when it has a tempo and
        /// is past its first beat.
        public var bar: Int?
        public var beat: Int?
    }

    public struct ZoneRow: Codable, Sendable, Equatable {
        public var name: String
        /// The gain of its reverb on the send it holds (energy-shared between the zones heard).
        public var gain: Double
    }

    public struct Session: Codable, Sendable, Equatable {
        public var category: String
        public var active: Bool
        /// The secondary-audio hint: another app's audio is playing.
        public var otherAudio: Bool
        public var interrupted: Bool
        /// The session's music duck, dB.
        public var duckDB: Double
    }

    public struct EventRow: Codable, Sendable, Equatable {
        /// ``AudioEngine/audioTime`` when it happened (the frame's, for non-voice events).
        public var time: Double
        /// A voice's end — `finished`, `stopped`, `stolen`, `evicted`, `refused`, `cooldown` —
        /// or `device-lost`, `device-restored`, `session`, or a sound bank's `bank-reloaded`
        /// (``detail``: what changed) or `bank-rejected` (``detail``: the first problem).
        public var kind: String
        /// The sound or clip's name, when a voice's; the bank file's name for a bank's events.
        public var name: String?
        /// The voice's id (absent for refused plays, which never had one).
        public var voice: String?
        /// More words (a device's name, a session change).
        public var detail: String?
    }
}
