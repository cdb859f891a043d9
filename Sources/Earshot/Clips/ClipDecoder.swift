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
/// - Ogg Vorbis → ``VorbisFileDecoder`` (libvorbisfile).
/// - Everything else (WAV including IMA ADPCM, AIFF/AIFF-C including `ima4`, FLAC, Ogg Opus …)
///   → ``SndFileDecoder`` (libsndfile).
///
/// ```swift
/// let step = try ClipDecoder.decode(path: "Assets/Sounds/step.caf")
/// let hit = try ClipDecoder.decode(data: pak.bytes(of: "hit.wav"), name: "pak/hit.wav")
/// ```
public enum ClipDecoder {
    /// Which decoder handles a file.
    public enum Route: String, Sendable {
        case caf, vorbis, sndfile
    }

    /// CAF encodings that libsndfile decodes and Earshot's own reader does not.
    static let sndfileCAFEncodings: Set<String> = ["alac", "ulaw", "alaw"]

    /// Decodes the file at `path`.
    public static func decode(path: String) throws(EarshotError) -> PCMAudio {
        let head = try FileBytes.readPrefix(path: path, count: 64)
        guard !head.isEmpty else { throw .unreadableFile(path: path, reason: "empty file") }
        switch try head.withUnsafeBytes({ route(for: $0) }) {
        case .caf: return try CAFReader.decode(path: path)
        case .vorbis: return try VorbisFileDecoder.decode(path: path)
        case .sndfile: return try SndFileDecoder.decode(path: path)
        }
    }

    /// Decodes a file held in memory; `name` labels errors.
    public static func decode(data: [UInt8], name: String) throws(EarshotError) -> PCMAudio {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) in try decode(b, name: name) }
    }

    /// Decodes a file held in memory; `name` labels errors. The bytes are only borrowed.
    public static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> PCMAudio {
        guard !bytes.isEmpty else { throw .unreadableFile(path: name, reason: "empty file") }
        switch route(for: bytes) {
        case .caf: return try CAFReader.decode(bytes, name: name)
        case .vorbis: return try VorbisFileDecoder.decode(bytes, name: name)
        case .sndfile: return try SndFileDecoder.decode(bytes, name: name)
        }
    }

    /// The decoder for a file starting with `head` (at least its first 64 bytes when it has them).
    public static func route(for head: UnsafeRawBufferPointer) -> Route {
        if CAFReader.looksLikeCAF(head) {
            // desc is the first chunk of every well-formed CAF: its format id is at offset 28.
            if head.count >= 32, CAFReader.readU32(head, 8) == CAFReader.fourCC("desc"),
               sndfileCAFEncodings.contains(CAFReader.fourCCString(CAFReader.readU32(head, 28))) {
                return .sndfile
            }
            return .caf
        }
        if VorbisFileDecoder.looksLikeVorbis(head) { return .vorbis }
        return .sndfile
    }

    // MARK: Inspection

    /// Describes the file at `path` without decoding all of it (CAF fully parsed; other formats
    /// as libsndfile's header reports them).
    public static func inspect(path: String) throws(EarshotError) -> ClipFileInfo {
        let bytes = try FileBytes.read(path: path)
        return try inspect(data: bytes, name: path)
    }

    /// Describes a file held in memory.
    public static func inspect(data: [UInt8], name: String) throws(EarshotError) -> ClipFileInfo {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) -> ClipFileInfo in
            guard !b.isEmpty else { throw .unreadableFile(path: name, reason: "empty file") }
            if route(for: b) == .caf {
                let caf = try CAFReader.parse(b, name: name)
                let f = caf.format
                return ClipFileInfo(container: "CAF", codec: f.codecName, sampleRate: f.sampleRate, channels: f.channels,
                                    frames: caf.frameCount, packets: caf.packetCount, bytes: b.count, audioBytes: caf.audioByteCount)
            }
            return try SndFileDecoder.withVirtualFile(b, name: name) { (file, info) throws(EarshotError) -> ClipFileInfo in
                guard info.channels > 0, info.samplerate > 0 else {
                    throw .malformedFile("\(name): \(info.channels) channels at \(info.samplerate) Hz")
                }
                return ClipFileInfo(container: formatName(info.format & Int32(SF_FORMAT_TYPEMASK), command: Int32(SFC_GET_FORMAT_MAJOR)),
                                    codec: formatName(info.format & Int32(SF_FORMAT_SUBMASK), command: Int32(SFC_GET_FORMAT_SUBTYPE)),
                                    sampleRate: Double(info.samplerate), channels: Int(info.channels),
                                    frames: Int(info.frames), packets: nil, bytes: b.count, audioBytes: nil)
            }
        }
    }

    private static func formatName(_ format: Int32, command: Int32) -> String {
        var count: Int32 = 0
        let countCommand = command == Int32(SFC_GET_FORMAT_MAJOR) ? Int32(SFC_GET_FORMAT_MAJOR_COUNT) : Int32(SFC_GET_FORMAT_SUBTYPE_COUNT)
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

/// What `earshot info` reports about an audio file.
public struct ClipFileInfo: Sendable, Equatable, Codable {
    /// The container: `CAF`, or libsndfile's name (`WAV (Microsoft)`, `FLAC` …).
    public var container: String
    /// The encoding: `ima4`, `pcm_s16le` … for CAF, libsndfile's subtype name otherwise.
    public var codec: String
    /// Frames per second.
    public var sampleRate: Double
    /// Channels per frame.
    public var channels: Int
    /// Frames of audio (what decoding yields for CAF; the header's count otherwise).
    public var frames: Int
    /// Duration in seconds.
    public var duration: Double
    /// Packets in the data (CAF only).
    public var packets: Int?
    /// Size of the file in bytes.
    public var bytes: Int
    /// Bytes of encoded audio (CAF only).
    public var audioBytes: Int?

    public init(container: String, codec: String, sampleRate: Double, channels: Int, frames: Int,
                packets: Int?, bytes: Int, audioBytes: Int?) {
        self.container = container
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.frames = frames
        self.duration = sampleRate > 0 ? Double(frames) / sampleRate : 0
        self.packets = packets
        self.bytes = bytes
        self.audioBytes = audioBytes
    }
}
