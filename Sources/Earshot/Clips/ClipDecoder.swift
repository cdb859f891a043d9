import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// The front door of decoding: picks the decoder for a file by its first bytes, from a path or
/// from memory, with the same results and the same errors either way.
///
/// - CAF (`caff`) with `lpcm` or `ima4` audio → ``CAFReader`` (IMA4 bit-exact with ffmpeg).
///   CAF with another encoding libsndfile knows (`alac`, `ulaw`, `alaw`) → libsndfile; any other
///   → ``EarshotError/unsupportedEncoding(_:)`` naming the format.
/// - Ogg Vorbis → ``VorbisFileDecoder`` (libvorbisfile), and so does Ogg of any codec but Opus
///   and FLAC, which vorbisfile refuses without leaking.
/// - Everything else (WAV including IMA ADPCM, AIFF/AIFF-C including `ima4`, FLAC, Ogg Opus and
///   Ogg FLAC …) → ``SndFileDecoder`` (libsndfile).
///
/// ```swift
/// let step = try ClipDecoder.decode(path: "Assets/Sounds/step-ima4.caf")
/// let bytes = try FileBytes.read(path: "Assets/Sounds/coin.wav")   // or out of your asset archive
/// let coin = try ClipDecoder.decode(data: bytes, name: "pak/coin.wav")
/// ```
public enum ClipDecoder: InMemoryAudioDecoder {
    /// Which decoder handles a file.
    public enum Route: String, Sendable {
        case caf, vorbis, sndfile
    }

    /// CAF encodings that libsndfile decodes and Earshot's own reader does not.
    static let sndfileCAFEncodings: Set<String> = ["alac", "ulaw", "alaw"]

    /// Decodes the file at `path`, within `options`' size limit (see ``Options``).
    public static func decode(path: String, options: Options = Options()) throws(EarshotError) -> PCMAudio {
        let head = try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes)
        guard !head.isEmpty else { throw .unreadableFile(path: path, reason: "empty file") }
        switch head.withUnsafeBytes({ route(for: $0) }) {
        case .caf: return try CAFReader.decode(path: path, options: options)
        case .vorbis: return try VorbisFileDecoder.decode(path: path, options: options)
        case .sndfile: return try SndFileDecoder.decode(path: path, options: options)
        }
    }

    /// Decodes a file held in memory; `name` labels errors. The bytes are only borrowed.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, name: String, options: Options = Options()
    ) throws(EarshotError) -> PCMAudio {
        guard !bytes.isEmpty else { throw .unreadableFile(path: name, reason: "empty file") }
        switch route(for: bytes) {
        case .caf: return try CAFReader.decode(bytes, name: name, options: options)
        case .vorbis: return try VorbisFileDecoder.decode(bytes, name: name, options: options)
        case .sndfile: return try SndFileDecoder.decode(bytes, name: name, options: options)
        }
    }

    /// How many leading bytes ``route(for:)`` needs to decide: the longest Ogg page (a 27-byte
    /// header, 255 lacing values, 255 × 255 bytes of data), whose checksum must hold before an
    /// Opus or FLAC stream goes to libsndfile (see ``VorbisFileDecoder/oggCodec(_:)``).
    public static let sniffBytes = 27 + 255 + 255 * 255

    /// The decoder for a file starting with `head` (at least its first ``sniffBytes`` bytes when
    /// it has them).
    public static func route(for head: UnsafeRawBufferPointer) -> Route {
        if CAFReader.looksLikeCAF(head) {
            // desc is the first chunk of every well-formed CAF: its format id is at offset 28.
            if head.count >= 32, CAFReader.readU32(head, 8) == CAFReader.fourCC("desc"),
               sndfileCAFEncodings.contains(CAFReader.fourCCString(CAFReader.readU32(head, 28))) {
                return .sndfile
            }
            return .caf
        }
        // Ogg that is neither Opus nor FLAC goes to vorbisfile, which refuses what it cannot read
        // without leaking (libsndfile 1.2.0 leaks on every Ogg stream it fails to open).
        switch VorbisFileDecoder.oggCodec(head) {
        case .vorbis?, .other?: return .vorbis
        case .opus?, .flac?, nil: return .sndfile
        }
    }

    // MARK: Inspection

    /// Describes the file at `path` without decoding its audio: CAF fully parsed from its chunk
    /// headers (the audio is not read), Ogg Vorbis as libvorbisfile reports
    /// it, other formats as libsndfile's header reports them. A length the file does not state
    /// (or states beyond ``ClipFileInfo/maxPlausibleFrames``) is reported as unknown (`nil`).
    ///
    /// The file's markers (``MarkerReader``) are in ``ClipFileInfo/markers``; marker chunks that
    /// cannot be read do not fail the inspection: ``ClipFileInfo/markersUnreadable`` says why.
    public static func inspect(path: String) throws(EarshotError) -> ClipFileInfo {
        var info = try inspectAudio(path: path)
        let frames = info.frames ?? ClipFileInfo.maxPlausibleFrames
        info.attach { () throws(EarshotError) in try MarkerReader.read(path: path, frameCount: frames) }
        return info
    }

    /// ``inspect(path:)`` without the markers.
    private static func inspectAudio(path: String) throws(EarshotError) -> ClipFileInfo {
        let head = try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes)
        guard !head.isEmpty else { throw .unreadableFile(path: path, reason: "empty file") }
        switch head.withUnsafeBytes({ route(for: $0) }) {
        case .caf:
            return try describe(try CAFReader.parse(path: path), name: path, bytes: FileCheck.size(path))
        case .vorbis:
            return try VorbisFileDecoder.inspect(path: path)
        case .sndfile:
            try FileCheck.requireRegularFile(path)
            let promise = try SndFileDecoder.Preflight.file(path)
            var info = SF_INFO()
            guard let file = RawPath.withCString(path, { sf_open($0, Int32(SFM_READ), &info) }) else {
                throw promise.openFailure(name: path)
                    ?? .unreadableFile(path: path, reason: SndFileDecoder.openFailure(path: path))
            }
            defer { sf_close(file) }
            try SndFileDecoder.checkWhole(file, info: info, promise: promise, name: path) {
                (count) throws(EarshotError) in
                var again = SF_INFO()
                guard let fresh = RawPath.withCString(path, { sf_open($0, Int32(SFM_READ), &again) }) else { return }
                defer { sf_close(fresh) }
                count(fresh)
            }
            return try describe(info, name: path, bytes: FileCheck.size(path))
        }
    }

    /// Describes a file held in memory, its markers included (as ``inspect(path:)``).
    public static func inspect(data: [UInt8], name: String) throws(EarshotError) -> ClipFileInfo {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) -> ClipFileInfo in
            var info = try inspectAudio(b, name: name)
            let frames = info.frames ?? ClipFileInfo.maxPlausibleFrames
            info.attach { () throws(EarshotError) in try MarkerReader.read(b, name: name, frameCount: frames) }
            return info
        }
    }

    /// ``inspect(data:name:)`` without the markers.
    private static func inspectAudio(_ b: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> ClipFileInfo {
        guard !b.isEmpty else { throw .unreadableFile(path: name, reason: "empty file") }
        switch route(for: b) {
        case .caf:
            return try describe(try CAFReader.parse(b, name: name), name: name, bytes: b.count)
        case .vorbis:
            return try VorbisFileDecoder.inspect(b, name: name)
        case .sndfile:
            return try SndFileDecoder.withVirtualFile(b, name: name) {
                (file, info, promise) throws(EarshotError) -> ClipFileInfo in
                try SndFileDecoder.checkWhole(file, info: info, promise: promise, name: name) {
                    (count) throws(EarshotError) in
                    try SndFileDecoder.withVirtualFile(b, name: name) { (fresh, _, _) throws(EarshotError) in
                        count(fresh)
                    }
                }
                return try describe(info, name: name, bytes: b.count)
            }
        }
    }

    /// A parsed CAF structure as a ``ClipFileInfo``; a file cut short is refused.
    private static func describe(_ caf: CAFFile, name: String, bytes: Int) throws(EarshotError) -> ClipFileInfo {
        if let cut = caf.truncation { throw cut.error(name) }
        let f = caf.format
        return ClipFileInfo(
            container: "CAF", codec: f.codecName, sampleRate: f.sampleRate, channels: f.channels,
            frames: caf.frameCount, packets: caf.packetCount, bytes: bytes, audioBytes: caf.audioByteCount)
    }

    /// A libsndfile header as a ``ClipFileInfo``.
    private static func describe(_ info: SF_INFO, name: String, bytes: Int) throws(EarshotError) -> ClipFileInfo {
        guard info.channels > 0, info.samplerate > 0 else {
            throw .malformedFile("\(name): \(info.channels) channels at \(info.samplerate) Hz")
        }
        return ClipFileInfo(
            container: formatName(info.format & Int32(SF_FORMAT_TYPEMASK), command: Int32(SFC_GET_FORMAT_MAJOR)),
            codec: formatName(info.format & Int32(SF_FORMAT_SUBMASK), command: Int32(SFC_GET_FORMAT_SUBTYPE)),
            sampleRate: Double(info.samplerate), channels: Int(info.channels),
            frames: SndFileDecoder.knownFrames(info), packets: nil, bytes: bytes, audioBytes: nil)
    }

    private static func formatName(_ format: Int32, command: Int32) -> String {
        var count: Int32 = 0
        let countCommand =
            command == Int32(SFC_GET_FORMAT_MAJOR)
            ? Int32(SFC_GET_FORMAT_MAJOR_COUNT) : Int32(SFC_GET_FORMAT_SUBTYPE_COUNT)
        sf_command(nil, countCommand, &count, Int32(MemoryLayout<Int32>.size))
        for i in 0..<max(0, count) {
            var fi = SF_FORMAT_INFO()
            fi.format = i
            sf_command(nil, command, &fi, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            if fi.format == format, let n = fi.name { return String(cString: n) }
        }
        return "0x" + String(format, radix: 16)
    }
}

/// What `earshot info` reports about an audio file (``ClipDecoder/inspect(path:)``).
///
/// ```swift
/// let info = try ClipDecoder.inspect(path: "Assets/Music/theme.ogg")
/// print(info.container, info.codec, info.sampleRate, info.channels, info.duration ?? .nan)
/// ```
public struct ClipFileInfo: Sendable, Equatable, Codable {
    /// The container: `CAF`, or libsndfile's name (`WAV (Microsoft)`, `FLAC` …).
    public var container: String
    /// The encoding: `ima4`, `pcm_s16le` … for CAF, libsndfile's subtype name otherwise.
    public var codec: String
    /// Frames per second.
    public var sampleRate: Double
    /// Channels per frame.
    public var channels: Int
    /// Frames of audio (what decoding yields for CAF; the header's count otherwise), or nil when
    /// the file does not state its length or states an implausible one (more than
    /// ``maxPlausibleFrames``).
    public var frames: Int?
    /// Duration in seconds, or nil when ``frames`` is unknown.
    public var duration: Double?
    /// Packets in the data (CAF only).
    public var packets: Int?
    /// Size of the file in bytes.
    public var bytes: Int
    /// Bytes of encoded audio (CAF only).
    public var audioBytes: Int?

    /// The most frames a length may state and still be reported: 2⁴⁰ (about 289 days at
    /// 44.1 kHz). Anything longer is a damaged or hostile header, reported as unknown.
    public static let maxPlausibleFrames = 1 << 40

    /// The file's markers (see ``MarkerReader``): cue points, regions and loops, by frame.
    public var markers: [Marker] = []
    /// Markers the file states that are past the end of its audio or unusable, left out of
    /// ``markers`` (``FileMarkers/leftOut``).
    public var markersLeftOut = 0
    /// Regions and loops shortened to end at the end of the audio (``FileMarkers/shortened``).
    public var markersShortened = 0
    /// Why the file's marker chunks could not be read (the error's description), or nil. The
    /// audio is described and plays all the same; ``markers`` is then empty.
    public var markersUnreadable: String?

    /// Reads the markers with `read`, or records why they could not be read.
    mutating func attach(_ read: () throws(EarshotError) -> FileMarkers) {
        do throws(EarshotError) {
            let found = try read()
            markers = found.markers
            markersLeftOut = found.leftOut
            markersShortened = found.shortened
        } catch {
            markersUnreadable = error.description
        }
    }

    public init(container: String, codec: String, sampleRate: Double, channels: Int, frames: Int?,
                packets: Int?, bytes: Int, audioBytes: Int?) {
        self.container = container
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        let known = frames.flatMap { (0...Self.maxPlausibleFrames).contains($0) ? $0 : nil }
        self.frames = known
        self.duration = known.map { sampleRate > 0 ? Double($0) / sampleRate : 0 }
        self.packets = packets
        self.bytes = bytes
        self.audioBytes = audioBytes
    }
}
