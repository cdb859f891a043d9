/// A named place in a sound: a cue point, a region or a loop, in frames of the sound's own audio.
///
/// Markers come from files — WAV `cue ` points named by `LIST`/`adtl` `labl` chunks, regions from
/// `ltxt`, loops from `smpl`; CAF `mark` and `regn` chunks named by `strg`; Ogg Vorbis
/// `CHAPTERxxx` comments (see ``MarkerReader``) — or from code (``Clip/withMarkers(_:)``).
///
/// Positions are in frames of the file's audio (frame 0 is the first frame the decoder yields),
/// not in seconds: a marker stays on the same sample whatever rate the sound is played at, and
/// its time is ``time(sampleRate:)-(Int)`` — for a clip, `marker.time(sampleRate: clip.info.sampleRate)`.
/// A marker may lie on the frame just past the last one (the end of the sound); never further.
///
/// ```swift
/// let hit = Marker(name: "hit", frame: 12_000)                      // 0.25 s at 48 kHz
/// let chorus = Marker(name: "chorus", frame: 96_000, length: 48_000) // a region
/// let line = Marker(name: "line", seconds: 0.75, sampleRate: 48_000)
/// print(hit.time(sampleRate: 48_000), chorus.kind, line.frame)       // 0.25 region 36000
/// ```
public struct Marker: Sendable, Hashable, Codable {
    /// Where a marker came from, and so what its length means.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A point (a WAV cue point without a length, a CAF `mark` marker, an Ogg chapter).
        case cue
        /// A stretch of the sound: a WAV cue point with an `ltxt` length, a CAF `regn` region.
        case region
        /// A sampler loop (a WAV `smpl` loop): ``Marker/length`` frames from ``Marker/frame``.
        case loop
    }

    /// The marker's name: the file's label (`labl`, `strg`, `CHAPTERxxxNAME`), or "" when it has
    /// none. Names from files are at most ``MarkerReader/maxNameBytes`` bytes of UTF-8.
    public var name: String
    /// The first frame the marker marks, in frames of the sound's audio (0 ... frame count).
    public var frame: Int
    /// Frames the marker spans (regions and loops), or nil for a point.
    public var length: Int?
    /// What kind of marker it is.
    public var kind: Kind
    /// The file's own identifier for it (a WAV cue point id, a CAF marker or region id, an Ogg
    /// chapter number), or nil for markers made in code.
    public var id: Int?

    /// A marker at `frame`; `kind` defaults to ``Kind/cue`` without a length and
    /// ``Kind/region`` with one.
    public init(name: String, frame: Int, length: Int? = nil, kind: Kind? = nil, id: Int? = nil) {
        self.name = name
        self.frame = frame
        self.length = length
        self.kind = kind ?? (length == nil ? .cue : .region)
        self.id = id
    }

    /// A marker at a time: the frame nearest `seconds` at `sampleRate` (a non-finite or negative
    /// time gives frame 0 — ``Clip/withMarkers(_:)`` refuses markers outside the clip).
    public init(name: String, seconds: Double, sampleRate: Int, lengthSeconds: Double? = nil, kind: Kind? = nil) {
        func frames(_ s: Double) -> Int {
            let f = (s * Double(sampleRate)).rounded()
            return f.isFinite && f >= 0 ? Int(min(f, Double(ClipFileInfo.maxPlausibleFrames))) : 0
        }
        self.init(name: name, frame: frames(seconds), length: lengthSeconds.map(frames), kind: kind)
    }

    /// The marker's time in seconds from the start of the sound at `sampleRate` frames per
    /// second (0 for a rate that is not positive).
    public func time(sampleRate: Int) -> Double { time(sampleRate: Double(sampleRate)) }

    /// The marker's time in seconds at `sampleRate` (a file's fractional rate).
    public func time(sampleRate: Double) -> Double { sampleRate > 0 ? Double(frame) / sampleRate : 0 }

    /// The frame just past the marker's end (``frame`` + ``length``), or nil for a point.
    public var endFrame: Int? { length.map { frame &+ $0 } }
}
