/// What a ``MusicSet`` is made of: segments (files with a tempo and cues), named states, the
/// transition rules between them and stingers. A plain value: build it in code or read it from
/// data (scenes, banks), then hand it to ``AudioEngine/makeMusicSet(_:)``, which checks it.
///
/// ```swift
/// var def = MusicSetDefinition(name: "level1")
/// let tempo = Tempo(bpm: 120, beatsPerBar: 4)
/// def.states = [
///     .init(name: "explore", content: .track(.init(path: "Assets/Music/theme.ogg", tempo: tempo))),
///     .init(name: "combat", content: .layers([
///         .init(name: "drums", segment: .init(path: "Assets/Music/drums.ogg", tempo: tempo)),
///         .init(name: "bass", segment: .init(path: "Assets/Music/bass.ogg", tempo: tempo)),
///     ])),
/// ]
/// def.transitions = [.init(from: "*", to: "combat", at: .nextBar, fade: 0.5)]
/// def.stingers = ["hit": .init(path: "Assets/Sounds/coin.wav")]
/// ```
public struct MusicSetDefinition: Sendable, Equatable {
    /// The set's name (scenes and banks refer to it by this name).
    public var name: String
    /// The states, in order; the first is the one ``MusicSet/play(state:at:)`` uses by default.
    public var states: [MusicState]
    /// The rules a state change follows; the first that matches wins (see ``MusicTransition``).
    public var transitions: [MusicTransition]
    /// One-shots played on the next beat or bar (``MusicSet/playStinger(_:at:duck:)``), by name.
    public var stingers: [String: MusicSegment]
    /// Segments that transitions play between two states (``MusicTransition/via``), by name.
    public var bridges: [String: MusicSegment]
    /// The bus every track of the set plays on.
    public var bus: Bus

    /// A set named `name` on `bus`, with the states, rules, stingers and bridges given.
    public init(name: String, states: [MusicState] = [], transitions: [MusicTransition] = [],
                stingers: [String: MusicSegment] = [:], bridges: [String: MusicSegment] = [:], bus: Bus = .music) {
        self.name = name
        self.states = states
        self.transitions = transitions
        self.stingers = stingers
        self.bridges = bridges
        self.bus = bus
    }

    /// The most states, transitions, stingers or bridges a set takes, and the most segments or
    /// layers a state takes.
    public static let maxEntries = 256

    /// The rule for a change from `from` to `to`: the first whose `from` and `to` match (a name, or
    /// `*` for any state), or nil (the change then happens ``MusicTransition/Boundary/immediate``
    /// with no fade).
    public func rule(from: String?, to: String) -> MusicTransition? {
        transitions.first { ($0.from == "*" || $0.from == from) && ($0.to == "*" || $0.to == to) }
    }
}

/// A file the set plays, with its tempo and cues.
///
/// ```swift
/// let loop = MusicSegment(path: "Assets/Music/theme.ogg", tempo: Tempo(bpm: 120), cues: ["drop": 16.0],
///                         entry: "drop")
/// ```
public struct MusicSegment: Sendable, Equatable {
    /// The file.
    public var path: String
    /// Its tempo: the grid that `nextBeat` and `nextBar` transitions and stingers land on, and the
    /// beats and bars ``AudioEngine/markers`` reports while it plays. nil: no grid (those
    /// boundaries fall back to `immediate`).
    public var tempo: Tempo?
    /// Cue points in seconds from the file's start, by name; the file's own markers
    /// (``MusicTrack/markers``) are cues too, and a name here replaces the file's.
    public var cues: [String: Double]
    /// The cue the segment starts from when its state is entered (nil: the file's start).
    public var entry: String?
    /// The cue an `end` transition leaves the segment at (nil: the file's end).
    public var exit: String?
    /// What a looping segment (a state's only or last segment, a stem) repeats: it plays from
    /// its entry to the loop's end once, then the region `start..<end` over and over, seams on
    /// the frame. nil: from the entry cue (or the file's start) to the file's end. A segment
    /// that does not loop (a stinger, a bridge, a sequence's earlier segments) takes none.
    public var loop: MusicLoop?

    /// A segment of `path`.
    public init(path: String, tempo: Tempo? = nil, cues: [String: Double] = [:], entry: String? = nil, exit: String? = nil,
                loop: MusicLoop? = nil) {
        self.path = path
        self.tempo = tempo
        self.cues = cues
        self.entry = entry
        self.exit = exit
        self.loop = loop
    }
}

/// A loop region of a music segment or track: where each pass starts and ends, in seconds or at
/// a cue (listed, or one of the file's markers).
///
/// ```swift
/// // A 2 s intro once, then 2 s … the cue "tail" (6 s) over and over:
/// let song = MusicSegment(path: "Assets/Music/theme.ogg", cues: ["tail": 6], loop: MusicLoop(start: .seconds(2), end: .cue("tail")))
/// ```
public struct MusicLoop: Sendable, Equatable {
    /// A point of the file.
    public enum Point: Sendable, Equatable {
        /// Seconds from the file's start.
        case seconds(Double)
        /// A cue's place.
        case cue(String)
    }

    /// Where each pass begins.
    public var start: Point
    /// Where each pass ends (nil: the file's end).
    public var end: Point?

    /// A region from `start` to `end` (nil: the file's end).
    public init(start: Point, end: Point? = nil) {
        self.start = start
        self.end = end
    }
}

/// A named state of a ``MusicSet``: what plays while the game is in it.
public struct MusicState: Sendable, Equatable {
    /// What a state plays.
    public enum Content: Sendable, Equatable {
        /// One segment, looping.
        case track(MusicSegment)
        /// Segments played one after the other, gaplessly; the last one loops (an intro, then a loop).
        case segments([MusicSegment])
        /// Stems that start together and stay sample-aligned, all looping; each has its own gain
        /// (``MusicSet/setLayerGain(_:layer:state:fade:)``). The first layer's tempo and cues are
        /// the state's grid.
        case layers([MusicLayer])
    }

    /// The state's name.
    public var name: String
    /// What it plays.
    public var content: Content

    /// A state named `name` playing `content`.
    public init(name: String, content: Content) {
        self.name = name
        self.content = content
    }

    /// Its segments in play order (layers: one per stem).
    public var segments: [MusicSegment] {
        switch content {
        case .track(let s): return [s]
        case .segments(let list): return list
        case .layers(let layers): return layers.map(\.segment)
        }
    }
}

/// One stem of a layered state.
public struct MusicLayer: Sendable, Equatable {
    /// The stem's name (`drums`, `bass`, …).
    public var name: String
    /// Its file.
    public var segment: MusicSegment
    /// Its gain when the state starts (0…``MusicTrack/maxVolume``, +12 dB; clamped).
    public var gain: Float
    /// Game parameters its gain follows (``ParameterCurve/Property/gain`` curves, in dB, added):
    /// an `intensity` that brings the drums in. They multiply ``gain`` and what
    /// ``MusicSet/setLayerGain(_:layer:state:fade:)`` sets; the global values count (a music set
    /// belongs to no voice or emitter), followed each frame over 50 ms.
    public var curves: [ParameterCurve]

    /// A stem named `name` playing `segment` at `gain`, following `curves`.
    public init(name: String, segment: MusicSegment, gain: Float = 1, curves: [ParameterCurve] = []) {
        self.name = name
        self.segment = segment
        self.gain = gain
        self.curves = curves
    }
}

/// A rule for changing state: when the new state begins, how the old one leaves and the new one
/// comes in, and what plays between.
///
/// ```swift
/// let rule = MusicTransition(from: "explore", to: "combat", at: .nextBar, fade: 0.5, curve: .equalPower,
///                            stinger: "hit", via: "bridge")
/// // Out over 1.5 s, in over 0.5 s:
/// let lastLap = MusicTransition(to: "lastLap", at: .immediate, fade: 1.5, fadeIn: 0.5)
/// ```
public struct MusicTransition: Sendable, Equatable {
    /// Where on the playing segment's grid the new state begins.
    public enum Boundary: String, Sendable, Equatable, CaseIterable {
        /// At once.
        case immediate
        /// On the next beat of the playing segment's tempo.
        case nextBeat
        /// On the next first beat of a bar.
        case nextBar
        /// On the playing segment's next cue (listed or from its file).
        case nextCue
        /// At the playing segment's exit cue, or its end.
        case end
    }

    /// The state it leaves, or `*` for any.
    public var from: String
    /// The state it goes to, or `*` for any.
    public var to: String
    /// Where the new state begins.
    public var at: Boundary
    /// Seconds the old state fades out over from the boundary (0: it stops on the boundary).
    public var fade: Double
    /// Seconds the new state fades in over from its first sample (0: it begins at full level).
    /// Until set, the same as ``fade`` (also when ``fade`` is set later): a rule cross-fades both
    /// sides.
    public var fadeIn: Double {
        get { ownFadeIn ?? fade }
        set { ownFadeIn = newValue }
    }
    private var ownFadeIn: Double?
    /// Both fades' shape: `.equalPower` keeps the sum of the two states' powers constant through a
    /// two-sided cross-fade (no bump, no dip); `.linear` moves each volume in a straight line.
    public var curve: MusicTrack.FadeCurve
    /// A stinger (``MusicSetDefinition/stingers``) played on the boundary.
    public var stinger: String?
    /// A bridge (``MusicSetDefinition/bridges``) played from the boundary; the new state begins
    /// when it ends.
    public var via: String?

    /// A rule from `from` to `to` (either may be `*`); `fadeIn` nil: the new state fades in over
    /// `fade` too.
    public init(from: String = "*", to: String = "*", at: Boundary = .nextBar, fade: Double = 0, fadeIn: Double? = nil,
                curve: MusicTrack.FadeCurve = .equalPower, stinger: String? = nil, via: String? = nil) {
        self.from = from
        self.to = to
        self.at = at
        self.fade = fade
        self.ownFadeIn = fadeIn
        self.curve = curve
        self.stinger = stinger
        self.via = via
    }

    /// Two rules are equal when they behave alike (a fade-in given as the fade is the same rule).
    public static func == (a: MusicTransition, b: MusicTransition) -> Bool {
        a.from == b.from && a.to == b.to && a.at == b.at && a.fade == b.fade && a.fadeIn == b.fadeIn
            && a.curve == b.curve && a.stinger == b.stinger && a.via == b.via
    }
}
