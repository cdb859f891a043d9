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
        /// The distance model of every positioned voice.
        public var distanceModel: DistanceModel
        /// The doppler factor (0 disables doppler).
        public var dopplerFactor: Float
        /// The speed of sound in units per second.
        public var speedOfSound: Float

        public init(output: Output = .systemDefault, maxRealVoices: Int? = nil, musicSources: Int = 4,
                    hrtf: Bool = false, distanceModel: DistanceModel = .inverseClamped,
                    dopplerFactor: Float = 1, speedOfSound: Float = 343.3) {
            self.output = output
            self.maxRealVoices = maxRealVoices
            self.musicSources = musicSources
            self.hrtf = hrtf
            self.distanceModel = distanceModel
            self.dopplerFactor = dopplerFactor
            self.speedOfSound = speedOfSound
        }
    }
}
