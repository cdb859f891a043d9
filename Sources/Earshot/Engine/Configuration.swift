/// How to build an ``AudioEngine``: output, voice budget, 3D rendering. Every field has a default.
///
/// ```swift
/// var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
/// config.maxRealVoices = 1024
/// let engine = try AudioEngine(configuration: config)
/// ```
extension AudioEngine {
    public struct Configuration: Sendable, Equatable {
        /// Where the engine's sound goes. Default: the system's default playback device.
        public var output: Output
        /// Real OpenAL sources to ask for, for voices. `nil` takes what OpenAL grants by default
        /// (256 in all on OpenAL Soft 1.19.1, less the music sources). Up to 4096.
        public var maxRealVoices: Int?
        /// Sources reserved for streamed music tracks, outside the voice pool (never stolen).
        public var musicSources: Int
        /// HRTF binaural rendering (stereo output only).
        public var hrtf: Bool
        /// The loopback output limiter's ceiling, and whether it holds the true peak under it
        /// (``LimiterSettings``; default −0.1 dBFS, sample peak). Real devices use OpenAL Soft's limiter.
        public var limiter = LimiterSettings()
        /// The distance model of every positioned voice.
        public var distanceModel: DistanceModel
        /// The doppler factor (0 disables doppler).
        public var dopplerFactor: Float
        /// The speed of sound in units per second.
        public var speedOfSound: Float
        /// Voices that may exist beyond the real sources (virtual voices). When full, the
        /// lowest-standing request is refused or the lowest virtual voice evicted.
        public var maxVirtualVoices: Int
        /// How long a voice fades out before its source is stopped (stolen, paused or stopped),
        /// and fades in when it resumes mid-clip. OpenAL Soft 1.19.1 clicks on a hard stop.
        public var fadeTime: Double
        /// Voices quieter than this linear audibility never hold a source (default −80 dB).
        public var audibilityFloor: Float
        /// A voice never heard yet that wins a source at most this late starts from its first
        /// frame instead of joining mid-clip (seconds).
        public var lateStartTolerance: Double
        /// Lenient clip loading: a file shorter than its container says (a WAV cut short, a FLAC
        /// or an Ogg stream without its end) loads as far as it goes, with a warning naming the
        /// frames expected and found, instead of throwing
        /// ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)``
        /// (``ClipDecoder/Options/allowsTruncated``). Off by default.
        public var allowsTruncatedClips = false
        /// The most bytes of decoded samples one clip may take (default 512 MiB; at most
        /// 2 GiB − 1, OpenAL's limit). Checked before allocating: from the file's header where it
        /// states its length, while decoding otherwise. A clip over it throws
        /// ``EarshotError/tooLarge(name:what:size:limit:setting:)``; long audio plays as a stream
        /// (``AudioStream``, ``MusicTrack``).
        public var maxClipBytes: Int
        /// The most bytes of decoded samples all the engine's loaded clips may take together
        /// (default ``defaultMaxTotalClipBytes``, 1 GiB; at least 1). A clip that would take the
        /// total over it is refused *before it is decoded* — from its header where the file states
        /// its length — with ``EarshotError/tooLarge(name:what:size:limit:setting:)`` naming
        /// `Configuration.maxTotalClipBytes`; unloading clips makes room. A stereo clip counts
        /// twice its decoded size: its channels are kept as mono buffers too, which a 2D stereo
        /// voice's balance plays (<doc:StereoAndSpread>). Scenes run on an engine
        /// with the default, and `earshot validate` refuses a scene whose clips' headers already
        /// add up to more.
        public var maxTotalClipBytes: Int
        /// The default ``maxTotalClipBytes``: 1 GiB of decoded samples.
        public static let defaultMaxTotalClipBytes = 1 << 30
        /// Decode Vorbis and Opus clips to 32-bit floats instead of 16-bit integers (default false:
        /// half the memory, and what OpenAL mixes from anyway).
        public var lossyClipsAsFloat: Bool
        /// Whether the engine keeps a copy of every clip's samples to upload them again when a
        /// lost device is reopened (OpenAL cannot give a buffer's data back). `nil` (the default)
        /// keeps it on devices that can be lost and not on a loopback device, which cannot;
        /// `false` saves the memory at the price of clips that are gone after a device loss
        /// (their voices end; reload them, or let a ``ClipBank`` rebuild them).
        public var keepsClipsForRecovery: Bool?
        /// Auxiliary sends per source for reverb zones (0…15, default 2, OpenAL Soft's own
        /// default): how many zones one voice can be heard in at once.
        public var zoneSends: Int
        /// Reserve one more send per source for bus effects (``AudioEngine/setEffect(_:level:for:)``).
        /// Off by default: OpenAL Soft 1.19.1 computes every send of every moving source each
        /// frame, used or not — a third send measured +5 % of the mixing cost at 1,024 voices.
        public var busEffects: Bool
        /// Follow the system's default output (default true): when the user picks another
        /// output (headphones plugged in, a choice in the desktop's sound settings), a
        /// `.systemDefault` engine moves to it, carrying on where it was, and the session posts
        /// `routeChange` events (``AudioSession/RouteChangeReason/newDeviceAvailable`` for a new
        /// default, ``AudioSession/RouteChangeReason/oldDeviceUnavailable`` when the output it
        /// played on goes away; see ``AudioSession/pausesWhenOutputGoesAway``). False pins the
        /// device the engine opened on. PulseAudio (and PipeWire's PulseAudio server) only; the
        /// choice is made for the whole process by its first device open (see the
        /// AudioSessionPolicy article).
        public var followsDefaultOutput: Bool
        /// The seed of every random choice the engine makes — which clip of a ``Sound`` plays, its
        /// pitch and gain variation (nil, the default: a different seed each run). The same seed
        /// and the same calls give a bit-identical render on a loopback engine.
        public var randomSeed: UInt64?
        /// Where the engine hears that the system's default output changed (see
        /// ``DefaultOutputSource``). nil (the default): on Linux, the PulseAudio server's events,
        /// for a live `.systemDefault` engine that ``followsDefaultOutput``; no source otherwise.
        /// A source set here is used by any engine, a loopback one too (a test's): the engine
        /// starts it in `init` and stops it in ``AudioEngine/shutdown()``; give each engine its
        /// own. Two configurations are equal when they hold the same source object.
        public var defaultOutputSource: (any DefaultOutputSource)? {
            get { defaultOutputSourceReference.source }
            set { defaultOutputSourceReference = DefaultOutputSourceReference(source: newValue) }
        }
        private var defaultOutputSourceReference = DefaultOutputSourceReference(source: nil)
        /// Open the live monitor (default false): a Unix-domain socket, mode 0600, in
        /// `$XDG_RUNTIME_DIR/earshot/` named by the process id, that `earshot monitor` connects to
        /// (see <doc:MonitoringARunningGame>). The environment variable `EARSHOT_MONITOR=1` turns it
        /// on too, without a rebuild. Set here, a socket that cannot be opened fails the engine's
        /// init with ``EarshotError/monitor(_:)``; asked by the environment, it is logged and the
        /// engine runs without. Nothing is done while no client is connected.
        public var monitor = false
        /// Sources kept apart for ambisonic beds (``AmbisonicBed``), outside the voice pool and
        /// music's sources: a first-order bed takes 1, a second-order bed 12 (its virtual
        /// loudspeakers), a third-order bed 24. Default 50: two third-order beds cross-fading
        /// and two first-order ones. 0…256; idle sources cost no mixing.
        public var bedSources = 50

        public init(output: Output = .systemDefault, maxRealVoices: Int? = nil, musicSources: Int = 4,
                    hrtf: Bool = false, distanceModel: DistanceModel = .inverseClamped,
                    dopplerFactor: Float = 1, speedOfSound: Float = 343.3, maxVirtualVoices: Int = 4096,
                    fadeTime: Double = 0.005, audibilityFloor: Float = 0.0001, lateStartTolerance: Double = 0.05,
                    maxClipBytes: Int = ClipDecoder.Options.defaultMaxBytes, lossyClipsAsFloat: Bool = false,
                    keepsClipsForRecovery: Bool? = nil, zoneSends: Int = 2, busEffects: Bool = false,
                    followsDefaultOutput: Bool = true, randomSeed: UInt64? = nil,
                    maxTotalClipBytes: Int = Configuration.defaultMaxTotalClipBytes,
                    defaultOutputSource: (any DefaultOutputSource)? = nil) {
            self.output = output
            self.maxRealVoices = maxRealVoices
            self.musicSources = musicSources
            self.hrtf = hrtf
            self.distanceModel = distanceModel
            self.dopplerFactor = dopplerFactor
            self.speedOfSound = speedOfSound
            self.maxVirtualVoices = maxVirtualVoices
            self.fadeTime = fadeTime
            self.audibilityFloor = audibilityFloor
            self.lateStartTolerance = lateStartTolerance
            self.maxClipBytes = maxClipBytes
            self.maxTotalClipBytes = maxTotalClipBytes
            self.lossyClipsAsFloat = lossyClipsAsFloat
            self.keepsClipsForRecovery = keepsClipsForRecovery
            self.zoneSends = zoneSends
            self.busEffects = busEffects
            self.followsDefaultOutput = followsDefaultOutput
            self.randomSeed = randomSeed
            self.defaultOutputSource = defaultOutputSource
        }
    }
}

extension AudioEngine.Configuration {
    /// The decoder options for clips this engine loads: its size limit and sample type.
    var clipDecodeOptions: ClipDecoder.Options {
        ClipDecoder.Options(maxBytes: maxClipBytes, lossyAsFloat: lossyClipsAsFloat,
                            limitName: "Configuration.maxClipBytes",
                            allowsTruncated: allowsTruncatedClips)
    }

    /// The context to ask OpenAL for: one place for the engine's first context and the one made
    /// on a reopened device, so both ask for the same sources.
    var contextRequest: ALContext.Request {
        ALContext.Request(monoSources: (maxRealVoices ?? 255) + bedSources, stereoSources: max(1, musicSources), hrtf: hrtf,
                          auxiliarySends: zoneSends + (busEffects ? 1 : 0))
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` for a value outside its documented range:
    /// checked before anything is opened.
    func validate() throws(EarshotError) {
        if let cap = maxRealVoices, !(1...4096).contains(cap) {
            throw .invalidArgument("maxRealVoices \(cap) is outside 1…4096")
        }
        guard (1...ClipDecoder.Options.maxBytesCeiling).contains(maxClipBytes) else {
            throw .invalidArgument("maxClipBytes \(maxClipBytes) is outside 1…\(ClipDecoder.Options.maxBytesCeiling)")
        }
        guard maxTotalClipBytes >= 1 else {
            throw .invalidArgument("maxTotalClipBytes \(maxTotalClipBytes) must be at least 1")
        }
        guard (0...1_000_000).contains(maxVirtualVoices) else {
            throw .invalidArgument("maxVirtualVoices \(maxVirtualVoices) is outside 0…1000000")
        }
        guard fadeTime.isFinite, fadeTime >= 0.0005, fadeTime <= 10 else {
            throw .invalidArgument("fadeTime \(fadeTime) s is outside 0.0005…10")
        }
        guard audibilityFloor.isFinite, audibilityFloor >= 0,
              lateStartTolerance.isFinite, lateStartTolerance >= 0 else {
            throw .invalidArgument("audibilityFloor and lateStartTolerance must be finite and ≥ 0")
        }
        guard (0...15).contains(zoneSends) else {
            throw .invalidArgument("zoneSends \(zoneSends) is outside 0…15")
        }
        guard (0...64).contains(musicSources) else {
            throw .invalidArgument("musicSources \(musicSources) is outside 0…64")
        }
        guard (0...256).contains(bedSources) else {
            throw .invalidArgument("bedSources \(bedSources) is outside 0…256")
        }
        try limiter.validate()
    }

    /// The sources the voice pool gets on `context`: what was granted less the music sources,
    /// capped at ``maxRealVoices``. Not clamped at zero; callers decide what a shortfall means.
    func voiceSourceCount(on context: ALContext) -> Int {
        min(maxRealVoices ?? Int.max, context.grantedMonoSources + context.grantedStereoSources - musicSources - bedSources)
    }
}
