#if canImport(Glibc)
import Glibc
#endif

/// A seekable source of interleaved float frames for a stream (a ``MusicTrack``, a plain stream).
///
/// Two implementations exist: ``VorbisStreamDecoder`` (Ogg Vorbis through libvorbisfile's
/// `ov_read`/`ov_pcm_seek`) and ``SndFileStreamDecoder`` (everything else libsndfile reads: WAV,
/// AIFF, FLAC, CAF PCM, Ogg Opus …). ``StreamDecoders/open(path:)`` picks one from the file's
/// first bytes. A decoder is not thread-safe: the stream system touches it only under its lock.
///
/// Samples are 32-bit floats in −1…1 whatever the file holds (16-bit Vorbis output is divided by
/// 32768, which is exact), so every track uploads one OpenAL format per channel count.
protocol StreamDecoder: AnyObject {
    /// What the file states about itself, read at open.
    var facts: StreamFileInfo { get }
    /// Decodes up to `frames` frames into `buffer` (room for `frames × channels` floats) from the
    /// current position; returns how many were decoded, 0 only at the end of the stream.
    /// Throws ``EarshotError/decodeFailed(path:reason:)`` on corrupt data.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int
    /// Moves to `frame` (0…frameCount) sample-accurately.
    func seek(toFrame frame: Int) throws(EarshotError)
    /// Closes the file now (at engine shutdown, while the game may still hold the track); reads
    /// and seeks after it throw ``EarshotError/engineShutDown``. Idempotent.
    func close()
}

/// What a stream's file states about itself, read at open (``AudioStream/file``).
///
/// ```swift
/// let bed = try engine.openStream(path: "Assets/Music/ambience.wav")
/// print(bed.file.channels, bed.file.duration)
/// ```
public struct StreamFileInfo: Sendable, Equatable {
    /// The file's path.
    public internal(set) var path: String
    /// Frames per second of the file (1000…384000).
    public internal(set) var sampleRate: Int
    /// Its channels, 1…``AudioStream/maxChannels``.
    public internal(set) var channels: Int
    /// Frames in the whole file, as the container states them (> 0).
    public internal(set) var frameCount: Int
    /// Its length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}

extension StreamDecoder {
    var path: String { facts.path }
    var sampleRate: Int { facts.sampleRate }
    var channels: Int { facts.channels }
    var frameCount: Int { facts.frameCount }
}

/// Opens the right ``StreamDecoder`` for a file.
enum StreamDecoders {
    /// The most channels a stream carries: 16 (third-order ambisonics). Checked at open, before
    /// any sample buffer is made.
    static let maxChannels = 16

    /// A read-only, close-on-exec descriptor of `path` (a child the game spawns while music
    /// streams inherits none).
    static func openReadOnly(_ path: String) throws(EarshotError) -> Int32 {
        let fd = RawPath.withCString(path) { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        return fd
    }

    /// Opens `path`: Ogg Vorbis through libvorbisfile, anything else (including Ogg streams that
    /// are not Vorbis) through libsndfile.
    ///
    /// Throws ``EarshotError/fileNotFound(path:)``, ``EarshotError/unreadableFile(path:reason:)``
    /// for a file that is not audio, ``EarshotError/unsupportedEncoding(_:)`` for more than
    /// ``maxChannels`` channels and ``EarshotError/malformedFile(_:)`` for an empty file, an impossible rate or a
    /// length over ``ClipFileInfo/maxPlausibleFrames``.
    static func open(path: String) throws(EarshotError) -> any StreamDecoder {
        try FileCheck.requireRegularFile(path)
        let decoder: any StreamDecoder
        let head = try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes)
        switch head.withUnsafeBytes({ VorbisFileDecoder.oggCodec($0) }) {
        case .vorbis?, .other?:
            // Ogg that is neither Opus nor FLAC is vorbisfile's to read or refuse: libsndfile
            // 1.2.0 leaks on every Ogg stream it fails to open.
            guard let vorbis = try VorbisStreamDecoder.openIfVorbis(path: path) else {
                throw .unreadableFile(path: path, reason: "an Ogg stream that is neither Vorbis, Opus nor FLAC")
            }
            decoder = vorbis
        case .opus?, .flac?, nil:
            decoder = try SndFileStreamDecoder(path: path)
        }
        guard decoder.channels >= 1 else { throw .malformedFile("\(path): no channels") }
        guard decoder.channels <= maxChannels else {
            throw .unsupportedEncoding("\(path): \(decoder.channels) channels (streams carry 1…\(maxChannels))")
        }
        guard (1_000...384_000).contains(decoder.sampleRate) else {
            throw .malformedFile("\(path): sample rate \(decoder.sampleRate) Hz")
        }
        guard decoder.frameCount > 0 else {
            throw .malformedFile("\(path): no audio frames")
        }
        // An Ogg stream's length is its last page's granule position: any 64-bit value. Frame
        // arithmetic downstream (loops, seeks, positions in seconds) stays exact below 2^40.
        guard decoder.frameCount <= ClipFileInfo.maxPlausibleFrames else {
            throw .malformedFile("\(path): an implausible length of \(decoder.frameCount) frames (more than \(ClipFileInfo.maxPlausibleFrames))")
        }
        return decoder
    }
}
