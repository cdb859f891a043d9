import COpenAL

/// A play request after ``PlayResolver`` checked and converted it: everything the voice pool
/// needs to start a voice, as indices, frames and plain values, and nothing it must look up or
/// check again. What ``VoicePool/start(_:now:)`` takes — made under the AL lock, used in the same
/// lock section (the indices are valid only there).
struct ResolvedPlay {
    // The clip.
    var clipID: UInt32
    var buffer: ALuint
    /// The clip's length in frames and its sample rate.
    var frames: Int
    var rate: Int
    /// Where the first pass begins, in the clip's frames (``PlayOptions/offset`` converted).
    var startFrame: Double
    /// Passes of the clip: ``PlayOptions/loopCount`` + 1, within OpenAL's 2³¹ frames.
    var passes: Int32
    /// Loop until stopped.
    var loop: Bool

    // The voice.
    var gain: Float
    /// The clip handle's gain, which `gain` holds (``Clip/gain``).
    var clipGain: Float = 1
    var pitch: Float
    var priority: UInt8
    /// Seconds before the first frame plays, and of the fade-in (both finite, ≥ 0).
    var delay: Double
    /// On a live device: the device's mixing clock reading at which the first frame is due
    /// (``EngineCore/scheduledStart(delay:startTime:)``), NaN for no exact start.
    var mixTarget: Double = .nan
    var fadeIn: Double
    /// The audio time its first frame is heard at (``Voice/startTime``).
    var startAudioTime: Double = 0

    // Where it is heard.
    /// Index of the bus in the engine's bus table (and in the pool's gains).
    var busIndex: Int
    var placement: VoiceState.Placement
    /// The pan of a `.pan` voice (−1…1).
    var pan: Float
    /// The spatial properties of a `.spatial` voice.
    var spatial: SpatialProperties
    /// The emitter table index of an `.emitter` voice, −1 otherwise.
    var emitterIndex: Int
    /// An `.emitter` voice with distance settings of its own (its sound's) in `spatial`.
    var ownDistance = false
    var environment: EnvironmentProperties
    /// A stereo clip's image flags (``VoiceState/ImageFlags``; 0 for a mono clip) and spread.
    var image: UInt8 = 0
    var spread: Float = 0
    /// A stereo clip's channel buffers (what a 2D stereo voice plays as a pair).
    var channels = ClipChannelBuffers()

    // The sound that played it.
    /// The sound played (a `SoundTable.Key`), 0 for a clip.
    var soundKey: UInt32 = 0
    /// Held virtual by its sound's instance limit from the start.
    var held = false
}

extension ResolvedPlay {
    /// A stereo clip's image flags and spread from its (checked) options: a point when forced
    /// (``SpatialMode/threeD``), a spread when positioned with one.
    mutating func stereoImage(_ options: PlayOptions) {
        image = VoiceState.ImageFlags.stereo
        if options.spatialMode == .threeD { image |= VoiceState.ImageFlags.point }
        if placement != .pan, let s = options.spread {
            image |= VoiceState.ImageFlags.spread
            spread = s
        }
    }
}

extension PlayOptions.Placement {
    /// Whether this is a ``pan(_:)`` (no position, no emitter).
    var isPan: Bool {
        if case .pan = self { return true }
        return false
    }
}
