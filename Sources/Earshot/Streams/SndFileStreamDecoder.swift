import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Streams any file libsndfile reads (WAV, AIFF, FLAC, CAF PCM, Ogg Opus …) with `sf_readf_float`
/// and sample-accurate `sf_seek`.
///
/// A read that stops short of the stated length with libsndfile's error flag set (a damaged FLAC
/// frame, an I/O error) is reported as ``EarshotError/decodeFailed(path:reason:)``; one that stops
/// short of an exact length without it (the file shrank while streaming) as
/// ``EarshotError/fileChangedWhileReading(path:decoded:expected:)``.
final class SndFileStreamDecoder: StreamDecoder {
    let facts: StreamFileInfo
    private var file: OpaquePointer?
    /// The file's descriptor (-1 once closed).
    private var descriptor: Int32
    private var position = 0
    /// Whether `frameCount` is exact (a shorter read means the file shrank while streaming).
    private let exactLength: Bool

    /// Opens `path`. Throws ``EarshotError/unreadableFile(path:reason:)`` when libsndfile does not
    /// recognise it as audio.
    /// Ogg other than Opus and FLAC is refused unopened (libsndfile 1.2.0 leaks on it).
    init(path: String) throws(EarshotError) {
        if let codec = try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes).withUnsafeBytes({ VorbisFileDecoder.oggCodec($0) }),
           codec != .opus, codec != .flac {
            throw .unreadableFile(path: path, reason: "an Ogg stream that is neither Opus nor FLAC (vorbisfile reads Vorbis)")
        }
        // RIFFCheck: libsndfile 1.2.0 never returns on some malformed LIST chunks; a WAV or an Ogg
        // stream cut short is refused at open (music is not loaded leniently).
        let promise = try SndFileDecoder.Preflight.file(path)
        var info = SF_INFO()
        // Our own descriptor, close-on-exec (sf_open's is inherited by every child the game
        // spawns); libsndfile does not close it (close_desc false): ``close()`` does.
        let fd = try StreamDecoders.openReadOnly(path)
        guard let f = sf_open_fd(fd, Int32(SFM_READ), &info, Int32(SF_FALSE)) else {
            Glibc.close(fd)
            throw promise.openFailure(name: path) ?? .unreadableFile(path: path, reason: SndFileDecoder.openFailure(path: path))
        }
        if let cut = promise.truncation(info: info, decoded: nil, failed: false) {
            sf_close(f)
            Glibc.close(fd)
            throw cut.error(path)
        }
        guard info.seekable != 0 else {
            sf_close(f)
            Glibc.close(fd)
            throw .unreadableFile(path: path, reason: "libsndfile cannot seek in it (music tracks need seeking for loops)")
        }
        file = f
        descriptor = fd
        let frameCount = info.frames > 0 && info.frames < sf_count_t(Int32.max) * 64 ? Int(info.frames) : 0
        facts = StreamFileInfo(path: path, sampleRate: Int(info.samplerate), channels: Int(info.channels), frameCount: frameCount)
        exactLength = frameCount > 0 && SndFileDecoder.hasExactLength(info)
        isFLAC = info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC)
    }

    /// A FLAC states its length in STREAMINFO: a read that ends before it is the file cut short.
    private let isFLAC: Bool

    deinit { close() }

    func close() {
        if let f = file { sf_close(f) }
        file = nil
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
        guard let file else { throw .engineShutDown }
        let got = Int(sf_readf_float(file, buffer, sf_count_t(frames)))
        if got < frames, isFLAC, frameCount > 0, position + max(0, got) < frameCount {
            throw .truncated(path: path, expectedFrames: frameCount, foundFrames: position + max(0, got),
                             detail: "its STREAMINFO states \(frameCount) frames" + (sf_error(file) != 0 ? "; decoding stopped on a damaged or missing frame" : ""))
        }
        if got < frames, sf_error(file) != 0 {
            throw .decodeFailed(path: path, reason: "\(SndFileDecoder.sndfileReason(file)) near frame \(position + max(0, got))")
        }
        if got < frames, exactLength, position + max(0, got) < frameCount {
            throw .fileChangedWhileReading(path: path, decoded: position + max(0, got), expected: frameCount)
        }
        position += max(0, got)
        return max(0, got)
    }

    func seek(toFrame frame: Int) throws(EarshotError) {
        guard let file else { throw .engineShutDown }
        guard sf_seek(file, sf_count_t(frame), SEEK_SET) == sf_count_t(frame) else {
            throw .decodeFailed(path: path, reason: "seek to frame \(frame) failed (\(SndFileDecoder.sndfileReason(file)))")
        }
        position = frame
    }
}
