/// A long file played from disk on any bus: an ambience bed, a long line, a surround stem.
///
/// Open one with ``AudioEngine/openStream(path:options:)``. A stream decodes in small chunks onto
/// the engine's stream sources (``AudioEngine/Configuration/musicSources``, shared with
/// ``MusicTrack``s), with the transport of a music track: play, pause, stop, seeks, fades,
/// loops (``Options/numberOfLoops``, ``Options/loopRegion``) and starts on the audio clock
/// (``play(at:)``). Several streams started by ``AudioStream/play(_:)`` begin on the same
/// mixed frame.
///
/// **Channels**: 1…16 (``maxChannels``). 1, 2, 4, 6, 7 and 8 channels play on one source
/// (OpenAL places quad, 5.1, 6.1 and 7.1 on its virtual loudspeakers); 3, 5 and 9…16 play as a
/// sample-aligned group of mono sources, one per channel, each at
/// the layout's speaker position (3: left, right, centre; 5: 5.0; others an
/// even ring from straight ahead, clockwise) — one source per channel is taken from the pool.
/// **Positional**: a mono stream can follow an ``Emitter`` (``Options/emitter``).
///
/// ```swift
/// let bed = try engine.openStream(path: "Assets/Music/ambience.wav",
///                                 options: .init(bus: .sfx, numberOfLoops: -1))
/// try bed.play()
/// bed.fade(to: 0, duration: 2, stopsAtEnd: true)
/// ```
public final class AudioStream: @unchecked Sendable {
    // @unchecked Sendable: `engine` is a weak var written once, in init; the streams are touched
    // only under the stream lock.

    /// How a stream ends; the same events as a music track's.
    public typealias Event = MusicTrack.Event

    /// The most channels a stream carries.
    public static let maxChannels = StreamDecoders.maxChannels

    /// How a stream is played.
    public struct Options: Sendable, Hashable {
        /// The bus it plays on (its gain, pause, stop, snapshots and ducking apply).
        public var bus: Bus
        /// The emitter it follows (mono streams only); nil: head-relative.
        public var emitter: Emitter?
        /// Its volume, 0…``MusicTrack/maxVolume``.
        public var volume: Float
        /// Further passes of the loop region (or the file): 0 plays once, −1 loops forever.
        public var numberOfLoops: Int
        /// The frames that loop; nil loops the whole file.
        public var loopRegion: Range<Int>?

        public init(bus: Bus = .sfx, emitter: Emitter? = nil, volume: Float = 1, numberOfLoops: Int = 0,
                    loopRegion: Range<Int>? = nil) {
            self.bus = bus
            self.emitter = emitter
            self.volume = volume
            self.numberOfLoops = numberOfLoops
            self.loopRegion = loopRegion
        }
    }

    weak var engine: AudioEngine?
    let system: StreamSystem
    /// One stream, or one mono stream per channel (``StreamLayout``), started and moved together.
    let parts: [QueuedStream]

    /// The file it streams: path, rate, channels, length.
    public let file: StreamFileInfo
    /// The bus it plays on.
    public let bus: Bus

    convenience init(engine: AudioEngine, path: String, options: Options) throws(EarshotError) {
        try Self.check(options)
        try self.init(engine: engine, decoder: try StreamDecoders.open(path: path), options: options, field: nil)
    }

    /// A sound field's placement and its parts' directions: empty `speakers`, one B-format part.
    struct FieldLayout {
        let placement: SoundFieldPlacement
        let speakers: [Vector3]
    }

    private static func check(_ options: Options) throws(EarshotError) {
        guard options.volume.isFinite, (0...MusicTrack.maxVolume).contains(options.volume) else {
            throw .invalidArgument("stream volume \(options.volume) is outside 0…\(MusicTrack.maxVolume)")
        }
        guard options.numberOfLoops >= -1 else { throw .invalidArgument("numberOfLoops \(options.numberOfLoops) is below −1") }
    }

    /// A stream over an open `decoder` (closed here on failure); with `field`, a sound field
    /// (Beds/): one B-format source, or one mono source per virtual loudspeaker on the field
    /// sources (``AudioEngine/Configuration/bedSources``), turned each frame.
    init(engine: AudioEngine, decoder: any StreamDecoder, options: Options, field: FieldLayout?) throws(EarshotError) {
        let path = decoder.path
        do throws(EarshotError) { try Self.check(options) } catch { decoder.close(); throw error }
        if let field, field.placement.isBFormat ? decoder.channels != 4 : decoder.channels != field.speakers.count {
            decoder.close()
            throw .invalidArgument("\(path): \(decoder.channels) channels do not fit the sound field's layout")
        }
        if field != nil, options.emitter != nil { decoder.close(); throw .invalidArgument("a sound field cannot follow an emitter") }
        if let region = options.loopRegion, region.isEmpty || region.lowerBound < 0 || region.upperBound > decoder.frameCount {
            decoder.close()
            throw .invalidArgument("loop region \(region) is outside the file's \(decoder.frameCount) frames")
        }
        if let emitter = options.emitter {
            guard emitter.link === engine.link else { decoder.close(); throw .wrongEngine }
            guard engine.properties(of: emitter) != nil else { decoder.close(); throw .invalidArgument("the emitter was removed") }
            guard decoder.channels == 1 else {
                decoder.close()
                throw .invalidArgument("\(path) has \(decoder.channels) channels: only a mono stream can follow an emitter")
            }
        }
        let native = engine.withStreamAL {
            field.map { $0.placement.isBFormat && StreamLayout.bformat3D() != nil }
                ?? (StreamLayout.nativeFormat(channels: decoder.channels) != nil)
        }
        if let field, field.placement.isBFormat, !native {
            decoder.close()
            throw .unsupportedEncoding("\(path): OpenAL lacks AL_EXT_BFORMAT for a first-order bed")
        }
        let parts: [QueuedStream]
        if native {
            parts = [QueuedStream(decoder: decoder, bus: options.bus, broadcast: ends)]
        } else {
            let count = decoder.channels
            let ends = self.ends
            parts = ChannelSplit(decoder).channels().enumerated().map { i, channel in
                QueuedStream(decoder: channel, bus: options.bus, broadcast: i == 0 ? ends : nil)
            }
            for (i, p) in parts.enumerated() {
                p.speaker = field.map { $0.speakers[i] } ?? StreamLayout.speakerPosition(channel: i, of: count)
            }
        }
        for p in parts {
            p.volume = options.volume
            p.numberOfLoops = options.numberOfLoops
            p.loopRegion = options.loopRegion
            p.emitter = options.emitter
            p.field = field?.placement
            try engine.musicSystem.register(p, host: engine)
        }
        if parts.count > 1 { engine.musicSystem.setGroup(parts) }
        // The group ends together: the first channel's ends are the stream's, sent to `ends`; the
        // parts' own single-consumer streams are finished now so that nothing piles up unread.
        for p in parts { p.continuation.finish() }
        self.engine = engine
        system = engine.musicSystem
        self.parts = parts
        file = decoder.facts
        bus = options.bus
    }

    /// Each play session's end (of its first channel's source: all end together): a new stream
    /// on every read, and every stream sees every end from then on; finished at shutdown (a
    /// stream read afterwards is finished at once). A consumer that falls behind keeps the newest
    /// 16 ends.
    public var events: AsyncStream<Event> { ends.stream() }
    private let ends = EventBroadcast<Event>(capacity: 16)

    /// Starts playing, or resumes after ``pause()``; every channel on the same mix.
    ///
    /// Throws ``EarshotError/musicSourcesBusy(_:)`` when the stream sources run out and
    /// ``EarshotError/engineShutDown``.
    public func play() throws(EarshotError) {
        try Self.play([self])
    }

    /// Starts `streams` together: their first frames are mixed on the same output frame.
    /// Throws ``EarshotError/wrongEngine`` when they belong to different engines.
    public static func play(_ streams: [AudioStream]) throws(EarshotError) {
        guard let shared = try common(streams) else { return }
        try shared.system.playGroup(streams.flatMap(\.parts), host: shared.engine)
    }

    /// Starts at audio time `time` (``AudioEngine/audioTime``), on that frame.
    public func play(at time: Double) throws(EarshotError) {
        try Self.play([self], at: time)
    }

    /// Starts `streams` at audio time `time`, together: the pump that reaches the time starts
    /// them all in one call.
    public static func play(_ streams: [AudioStream], at time: Double) throws(EarshotError) {
        guard time.isFinite else { throw .invalidArgument("start time \(time) is not finite") }
        guard let shared = try common(streams) else { return }
        try shared.system.play(streams.flatMap(\.parts), at: time, host: shared.engine)
    }

    /// The stream system and engine `streams` share (nil for no streams).
    private static func common(_ streams: [AudioStream]) throws(EarshotError) -> (system: StreamSystem, engine: AudioEngine)? {
        guard let first = streams.first else { return nil }
        guard let engine = first.engine else { throw .engineShutDown }
        guard streams.allSatisfy({ $0.system === first.system }) else { throw .wrongEngine }
        return (first.system, engine)
    }

    /// Pauses every channel in one call, keeping the position.
    public func pause() {
        guard let engine else { return }
        system.pauseGroup(parts, host: engine)
    }

    /// Stops (the session ends `.stopped`); ``play()`` goes on from where it stopped.
    public func stop() {
        guard let engine else { return }
        system.stopGroup(parts, host: engine)
    }

    /// Whether it is playing.
    public var isPlaying: Bool { engine.map { system.isPlaying(parts[0], host: $0) } ?? false }

    /// The position heard, in seconds of the file.
    public var currentTime: Double {
        guard let engine else { return 0 }
        return Double(system.currentFrame(parts[0], host: engine)) / Double(file.sampleRate)
    }

    /// Moves every channel to `seconds` (clamped to the file) together.
    public func seek(to seconds: Double) {
        guard let engine, seconds.isFinite else { return }
        system.seekGroup(parts, toFrame: Int((seconds * Double(file.sampleRate)).rounded()), host: engine)
    }

    /// Fades the volume to `target` (clamped to 0…``MusicTrack/maxVolume``) over `duration`
    /// seconds of playback; `stopsAtEnd` stops the stream when the fade completes.
    public func fade(to target: Float, duration: Double, stopsAtEnd: Bool = false) {
        guard let engine, target.isFinite, duration.isFinite else { return }
        let target = min(max(0, target), MusicTrack.maxVolume)
        for p in parts {
            system.fade(p, to: target, duration: duration, curve: .linear, stopsAtEnd: stopsAtEnd, restoreVolume: nil, host: engine)
        }
    }
}
