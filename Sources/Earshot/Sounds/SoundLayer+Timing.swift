/// Timeline sounds (FMOD's event timeline, Wwise's sequence containers): the layers of one sound
/// at offsets of their own, each with its own clip choice and variation, some looping, one of
/// them a *sustain point* — a gunshot as mechanics + body + tail, a door's "open" then "creak"
/// 0.3 s later at its own random pitch, an engine start → loop → stop.
///
/// A layer with a ``SoundLayer/timing`` makes its sound a timeline sound
/// (``SoundDefinition/isTimeline``). One play starts every layer but the tails, each ``delay``
/// after the play's start, to the frame (the audio clock's scheduled starts); the game holds one
/// ``Voice`` for the whole: stopping, pausing or moving it reaches every part, its
/// ``Voice/finished`` returns when the last part ends, and the sound's limit, steal and cooldown
/// count the whole as one instance. ``Voice/release()`` (or ``Voice/keyOff()``) lets the sustain
/// loop play to the end of its current pass; the ``tail`` layers start on the frame it ends.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let start = try engine.loadClip(path: "Assets/Sounds/beep.wav")
/// let run = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let stop = try engine.loadClip(path: "Assets/Sounds/step.wav")
/// let motor = try engine.makeSound(SoundDefinition(layers: [
///     SoundLayer(clip: start),
///     SoundLayer(clip: run, timing: .init(delay: start.info.duration, sustain: true)),
///     SoundLayer(clip: stop, timing: .init(tail: true)),
/// ], loop: false))
/// let voice = try engine.play(motor)
/// voice.release()                        // the loop ends its pass, then the stop plays
/// ```
extension SoundLayer {
    /// Where and how a layer plays on its sound's timeline.
    public struct Timing: Sendable, Equatable {
        /// Seconds after the play's start (for a ``tail``, after the sustain loop's end) at
        /// which the layer starts, exact to the frame (0…``maxDelay``).
        public var delay: Double
        /// More clips the layer picks from at each play, besides ``SoundLayer/clip`` (at most
        /// ``SoundDefinition/maxClips`` − 1), by ``selection``.
        public var alternatives: [Clip]
        /// How the layer's clip is picked among ``SoundLayer/clip`` and ``alternatives``.
        public var selection: SoundDefinition.Selection
        /// Each play moves the layer's pitch by a uniform random amount within ± this many cents
        /// (0…2400), and its gain within ± ``gainVariation`` dB (0…48).
        public var pitchVariation: Double
        public var gainVariation: Double
        /// Whether the layer loops (nil: as the sound's ``SoundDefinition/loop``; a sustain
        /// layer always loops). A loop other than the sustain plays until the voice is stopped
        /// or released (then it ends its pass).
        public var loop: Bool?
        /// The sustain point: the layer loops until ``Voice/release()``, then plays to the end of
        /// its current pass. At most one per sound.
        public var sustain: Bool
        /// A tail: the layer starts ``delay`` after the sustain loop's last frame, once released
        /// (a sound with tails needs a sustain layer).
        public var tail: Bool

        /// The longest delay of a layer, in seconds.
        public static let maxDelay = 3600.0

        public init(delay: Double = 0, alternatives: [Clip] = [], selection: SoundDefinition.Selection = .random,
                    pitchVariation: Double = 0, gainVariation: Double = 0, loop: Bool? = nil,
                    sustain: Bool = false, tail: Bool = false) {
            self.delay = delay
            self.alternatives = alternatives
            self.selection = selection
            self.pitchVariation = pitchVariation
            self.gainVariation = gainVariation
            self.loop = loop
            self.sustain = sustain
            self.tail = tail
        }

        /// Throws ``EarshotError/invalidArgument(_:)`` naming layer `layer`'s first bad value.
        func validate(layer: Int) throws(EarshotError) {
            guard delay.isFinite, (0...Self.maxDelay).contains(delay) else {
                throw .invalidArgument("layer \(layer): delay \(delay) s (must be 0…\(Int(Self.maxDelay)))")
            }
            guard alternatives.count < SoundDefinition.maxClips else {
                throw .invalidArgument("layer \(layer): at most \(SoundDefinition.maxClips) clips (got \(alternatives.count + 1))")
            }
            guard pitchVariation.isFinite, (0...2400).contains(pitchVariation) else {
                throw .invalidArgument("layer \(layer): pitch variation \(pitchVariation) cents (must be 0…2400)")
            }
            guard gainVariation.isFinite, (0...48).contains(gainVariation) else {
                throw .invalidArgument("layer \(layer): gain variation \(gainVariation) dB (must be 0…48)")
            }
            if sustain, loop == false {
                throw .invalidArgument("layer \(layer): a sustain point needs a looping layer (it has loop: false, a one-shot)")
            }
            if sustain, tail { throw .invalidArgument("layer \(layer): a layer is the sustain or a tail, not both") }
        }
    }
}

extension SoundDefinition {
    /// Whether the sound plays its layers on a timeline (some layer has a ``SoundLayer/timing``).
    public var isTimeline: Bool { parameterPart?.layers.contains { $0.timing != nil } ?? false }

    /// The layer that sustains (nil: none).
    var sustainLayer: Int? { layers.firstIndex { $0.timing?.sustain == true } }

    /// Whether layer `k` loops in a play whose loop (the sound's, or the play's override) is
    /// `playLoop`.
    func layerLoops(_ k: Int, playLoop: Bool) -> Bool {
        guard let t = layers[k].timing else { return playLoop }
        return t.sustain || (t.loop ?? playLoop)
    }

    /// The timeline's rules across layers (part of ``validate()``).
    func validateTimeline() throws(EarshotError) {
        guard isTimeline else { return }
        let sustains = layers.filter { $0.timing?.sustain == true }.count
        guard sustains <= 1 else { throw .invalidArgument("a sound has at most one sustain point (got \(sustains))") }
        let tails = layers.filter { $0.timing?.tail == true }.count
        if tails > 0, sustains == 0 {
            throw .invalidArgument("tail layers start when the sustain loop is released: the sound needs a sustain layer")
        }
        guard tails < layers.count else { throw .invalidArgument("a timeline needs a layer that is not a tail") }
    }
}
