import CVorbisFile
#if canImport(Glibc)
import Glibc
#endif

/// Streams an Ogg Vorbis file through libvorbisfile: `ov_read` (16-bit little-endian signed) for
/// data, `ov_pcm_seek` for sample-accurate seeks and loop wraps.
///
/// A hole in the data (`OV_HOLE`: a page lost to corruption), a bad link or a chained stream that
/// changes rate or channel count part-way is reported as ``EarshotError/decodeFailed(path:reason:)``
/// (the last as ``EarshotError/formatChanged(path:detail:)``):
/// a music track never plays past damage silently.
final class VorbisStreamDecoder: StreamDecoder {
    let facts: StreamFileInfo
    private let file: UnsafeMutablePointer<OggVorbis_File>
    /// ``close()`` was called: the file is closed and nothing more is read.
    private var closed = false
    private var scratch: [Int16] = []
    /// The frame the next read starts at (for messages).
    private var position = 0

    private init(file: UnsafeMutablePointer<OggVorbis_File>, facts: StreamFileInfo) {
        self.file = file
        self.facts = facts
    }

    /// Opens `path` as Ogg Vorbis; nil when the Ogg stream is not Vorbis (the caller then tries
    /// libsndfile). Throws for a damaged Vorbis file, and
    /// ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)`` for one that stops
    /// without its last page (music streams are not loaded leniently: a track cut short would
    /// end or loop early).
    static func openIfVorbis(path: String) throws(EarshotError) -> VorbisStreamDecoder? {
        let end = try OggLinkCheck.validate(path: path)   // libvorbisfile 1.3.7 leaks on a link that is not Vorbis
        // Our own close-on-exec descriptor (ov_fopen's is inherited by every child the game
        // spawns), as a stdio stream that ov_clear closes.
        let fd = try StreamDecoders.openReadOnly(path)
        guard let stream = fdopen(fd, "rb") else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .unreadableFile(path: path, reason: reason)
        }
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let result = ov_open(stream, file, nil, 0)
        if result != 0 {
            fclose(stream)   // ov_open leaves the stream open on failure
            file.deallocate()   // ov_open clears the struct itself on failure
            if let cut = Truncation.ogg(end, found: 0) { throw cut.error(path) }
            if result == OV_ENOTVORBIS { return nil }
            throw .unreadableFile(path: path, reason: "not a readable Ogg Vorbis file (\(reason(result)))")
        }
        guard ov_seekable(file) != 0, let info = ov_info(file, -1) else {
            ov_clear(file)
            file.deallocate()
            throw .unreadableFile(path: path, reason: "the Ogg Vorbis stream is not seekable")
        }
        let total = ov_pcm_total(file, -1)
        // Cut short (a length past 2⁴⁰ frames is refused as implausible by the caller instead).
        if total >= 0, Int(total) <= ClipFileInfo.maxPlausibleFrames, let cut = Truncation.ogg(end, found: Int(total)) {
            ov_clear(file)
            file.deallocate()
            throw cut.error(path)
        }
        return VorbisStreamDecoder(file: file, facts: StreamFileInfo(path: path, sampleRate: Int(info.pointee.rate),
                                                                   channels: Int(info.pointee.channels), frameCount: total > 0 ? Int(total) : 0))
    }

    deinit {
        close()
        file.deallocate()
    }

    func close() {
        guard !closed else { return }
        closed = true
        ov_clear(file)   // closes the stream and its descriptor
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
        guard !closed else { throw .engineShutDown }
        let wanted = frames * channels
        if scratch.count < wanted { scratch = [Int16](repeating: 0, count: wanted) }
        var samples = 0
        while samples < wanted {
            var link: Int32 = 0
            let bytes = scratch.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                let p = base.advanced(by: samples * 2).assumingMemoryBound(to: CChar.self)
                return ov_read(file, p, Int32((wanted - samples) * 2), 0, 2, 1, &link)
            }
            if bytes == 0 { break }
            if bytes < 0 {
                throw .decodeFailed(path: path, reason: "\(Self.reason(Int32(bytes))) near frame \(position + samples / channels)")
            }
            if let info = ov_info(file, link), Int(info.pointee.channels) != channels || Int(info.pointee.rate) != sampleRate {
                throw .formatChanged(path: path, detail: "a chained link of \(info.pointee.channels) channels at \(info.pointee.rate) Hz "
                                     + "after \(channels) at \(sampleRate) Hz")
            }
            samples += bytes / 2
        }
        let got = samples / channels
        scratch.withUnsafeBufferPointer { src in
            for i in 0..<(got * channels) { buffer[i] = Float(src[i]) * (1 / 32768) }
        }
        position += got
        return got
    }

    func seek(toFrame frame: Int) throws(EarshotError) {
        guard !closed else { throw .engineShutDown }
        let result = ov_pcm_seek(file, ogg_int64_t(frame))
        guard result == 0 else {
            throw .decodeFailed(path: path, reason: "seek to frame \(frame) failed (\(Self.reason(result)))")
        }
        position = frame
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case OV_HOLE: return "a hole in the data (OV_HOLE: damaged or missing pages)"
        case OV_EBADLINK: return "a bad link in the stream (OV_EBADLINK)"
        case OV_EINVAL: return "invalid stream state (OV_EINVAL)"
        case OV_EREAD: return "a read error (OV_EREAD)"
        case OV_EFAULT: return "an internal decoder fault (OV_EFAULT)"
        case OV_ENOTVORBIS: return "not Vorbis data (OV_ENOTVORBIS)"
        case OV_EBADHEADER: return "a bad Vorbis header (OV_EBADHEADER)"
        case OV_EVERSION: return "an unsupported Vorbis version (OV_EVERSION)"
        case OV_ENOSEEK: return "the stream is not seekable (OV_ENOSEEK)"
        default: return "libvorbisfile error \(code)"
        }
    }
}
