import CVorbisFile
#if canImport(Glibc)
import Glibc
#endif

/// Decodes Ogg Vorbis with libvorbisfile, from a path (`ov_fopen`) or from memory
/// (`ov_open_callbacks`), to 16-bit samples (32-bit floats with
/// ``ClipDecoder/Options/lossyAsFloat``).
///
/// The stream's length (`ov_pcm_total`, from its last page) is checked against
/// ``ClipDecoder/Options/maxBytes`` before anything is allocated, and the decoded total again
/// while decoding, since a damaged or hostile stream can understate it.
///
/// Chained streams must keep one channel count and sample rate. A hole in the data (a damaged
/// page) is an error, not a silent gap.
///
/// ```swift
/// let music = try VorbisFileDecoder.decode(path: "Assets/Music/theme.ogg")
/// ```
public enum VorbisFileDecoder: InMemoryAudioDecoder {
    /// What an Ogg stream's first packet says it carries.
    public enum OggCodec: Sendable { case vorbis, opus, flac, other }

    /// The codec of the Ogg stream starting `bytes` (its first page's first packet), or nil when
    /// the bytes do not start an Ogg page. Only Opus and FLAC-in-Ogg are handed to libsndfile:
    /// libsndfile 1.2.0 leaks ~5.8 KB each time it fails on any other Ogg stream.
    public static func oggCodec(_ bytes: UnsafeRawBufferPointer) -> OggCodec? {
        guard bytes.count >= 27, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53 else {
            return nil
        }
        let packet = 27 + Int(bytes[26])
        func starts(_ prefix: [UInt8]) -> Bool {
            bytes.count >= packet + prefix.count && prefix.indices.allSatisfy { bytes[packet + $0] == prefix[$0] }
        }
        if starts([0x01] + Array("vorbis".utf8)) { return .vorbis }
        // libogg skips a page whose checksum fails and classifies the next one: a damaged first
        // page that says Opus or FLAC, followed by a Vorbis page, would take libsndfile into its
        // Vorbis reader and its leak. Only a whole first page with a good CRC goes to libsndfile.
        if starts(Array("OpusHead".utf8)) { return firstPageIntact(bytes) ? .opus : .other }
        if starts([0x7F] + Array("FLAC".utf8)) { return firstPageIntact(bytes) ? .flac : .other }
        return .other
    }

    /// Whether the Ogg page at the start of `bytes` lies wholly inside them and its CRC-32
    /// (polynomial 0x04C11DB7, computed with the checksum field as zeros) matches.
    static func firstPageIntact(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 27 else { return false }
        let segments = Int(bytes[26])
        guard bytes.count >= 27 + segments else { return false }
        var length = 27 + segments
        for i in 0..<segments { length += Int(bytes[27 + i]) }
        guard bytes.count >= length else { return false }
        var crc: UInt32 = 0
        for i in 0..<length {
            let byte: UInt8 = (22..<26).contains(i) ? 0 : bytes[i]
            crc = (crc << 8) ^ oggCRCTable[Int(UInt8(crc >> 24) ^ byte)]
        }
        let stored = UInt32(bytes[22]) | UInt32(bytes[23]) << 8 | UInt32(bytes[24]) << 16 | UInt32(bytes[25]) << 24
        return crc == stored
    }

    private static let oggCRCTable: [UInt32] = (0..<256).map { (n: UInt32) -> UInt32 in
        var r = n << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    /// Decodes the Ogg Vorbis file at `path`.
    public static func decode(path: String, options: ClipDecoder.Options = .init()) throws(EarshotError) -> PCMAudio {
        try withFile(path) { (vf, end) throws(EarshotError) in try read(vf, name: path, options: options, end: end) }
    }

    /// Opens `path` with `ov_fopen` and runs `body` with the open file and how its pages end.
    /// A stream vorbisfile cannot open that stops without its last page (cut inside its headers)
    /// is ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)``, not "not Vorbis".
    static func withFile<R>(
        _ path: String, _ body: (UnsafeMutablePointer<OggVorbis_File>, OggLinkCheck.End) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        try FileCheck.requireRegularFile(path)
        let end = try OggLinkCheck.validate(path: path)   // libvorbisfile 1.3.7 leaks on a link that is not Vorbis
        let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { vf.deallocate() }
        let code = RawPath.withCString(path) { ov_fopen($0, vf) }
        guard code == 0 else { throw openFailure(code, name: path, end: end) }
        defer { ov_clear(vf) }
        return try body(vf, end)
    }

    /// Why vorbisfile refused a stream: cut short, when its pages say so; else vorbisfile's reason.
    private static func openFailure(_ code: Int32, name: String, end: OggLinkCheck.End) -> EarshotError {
        if let cut = Truncation.ogg(end, found: 0) { return cut.error(name) }
        return .unreadableFile(path: name, reason: reason(code))
    }

    /// Decodes Ogg Vorbis bytes held in memory; the bytes are only borrowed.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, name: String, options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        try withMemoryFile(bytes, name: name) { (vf, end) throws(EarshotError) in
            try read(vf, name: name, options: options, end: end)
        }
    }

    /// Describes the Ogg Vorbis file at `path` (rate, channels, length) without decoding it.
    public static func inspect(path: String) throws(EarshotError) -> ClipFileInfo {
        try withFile(path) { (vf, end) throws(EarshotError) in
            try describe(vf, name: path, bytes: FileCheck.size(path), end: end)
        }
    }

    /// Describes Ogg Vorbis bytes held in memory without decoding them.
    public static func inspect(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> ClipFileInfo {
        try withMemoryFile(bytes, name: name) { (vf, end) throws(EarshotError) in
            try describe(vf, name: name, bytes: bytes.count, end: end)
        }
    }

    private static func describe(_ vf: UnsafeMutablePointer<OggVorbis_File>, name: String, bytes: Int,
                                 end: OggLinkCheck.End) throws(EarshotError) -> ClipFileInfo {
        guard let info = ov_info(vf, -1), info.pointee.channels > 0, info.pointee.rate > 0 else {
            throw .malformedFile("\(name): no Vorbis stream information")
        }
        let total = ov_pcm_total(vf, -1)
        if let cut = Truncation.ogg(end, found: max(0, Int(total))) { throw cut.error(name) }
        return ClipFileInfo(
            container: "OGG (OGG Container format)", codec: "Vorbis", sampleRate: Double(info.pointee.rate),
            channels: Int(info.pointee.channels), frames: total >= 0 ? Int(total) : nil,
            packets: nil, bytes: bytes, audioBytes: nil)
    }

    /// Opens bytes in memory with `ov_open_callbacks` and runs `body` with the open file.
    static func withMemoryFile<R>(
        _ bytes: UnsafeRawBufferPointer, name: String,
        _ body: (UnsafeMutablePointer<OggVorbis_File>, OggLinkCheck.End) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        let end = try OggLinkCheck.validate(bytes, name: name)  // libvorbisfile 1.3.7 leaks on a link that is not Vorbis
        return try MemorySource.with(bytes) { (user) throws(EarshotError) -> R in
            let callbacks = ov_callbacks(
                read_func: { ptr, size, count, user in
                    guard let source = MemorySource.from(user), size > 0 else { return 0 }
                    let (total, overflow) = size.multipliedReportingOverflow(by: count)
                    guard !overflow else { return 0 }
                    return source.read(into: ptr, count: Int(clamping: total)) / size
                },
                seek_func: { user, offset, whence in
                    guard let source = MemorySource.from(user), source.seek(offset: offset, whence: whence) != nil
                    else { return -1 }
                    return 0
                },
                close_func: { _ in 0 },
                tell_func: { user in MemorySource.from(user)?.position ?? 0 })
            let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
            defer { vf.deallocate() }
            let code = ov_open_callbacks(user, vf, nil, 0, callbacks)
            guard code == 0 else { throw openFailure(code, name: name, end: end) }
            defer { ov_clear(vf) }
            return try body(vf, end)
        }
    }

    private static func read(_ vf: UnsafeMutablePointer<OggVorbis_File>, name: String,
                             options: ClipDecoder.Options, end: OggLinkCheck.End) throws(EarshotError) -> PCMAudio {
        guard let first = ov_info(vf, -1) else { throw .malformedFile("\(name): no Vorbis stream information") }
        let channels = Int(first.pointee.channels)
        let rate = first.pointee.rate
        guard (1...64).contains(channels) else { throw .malformedFile("\(name): \(channels) channels") }
        guard (1...768_000).contains(rate) else { throw .malformedFile("\(name): sample rate \(rate) Hz") }
        let bytesPerSample = options.lossyAsFloat ? 4 : 2
        // A seekable stream knows its length from its last page: refuse before allocating.
        let total = ov_pcm_total(vf, -1)
        var expected = 0
        if total > 0 {
            let (samples, overflow) = Int(total).multipliedReportingOverflow(by: channels)
            try options.check(samples: overflow ? Int.max : samples, bytesPerSample: bytesPerSample, channels: channels, name: name)
            expected = samples
        }
        if options.lossyAsFloat {
            var out: [Float] = []
            out.reserveCapacity(expected)
            try decodeLoop(vf, channels: channels, rate: rate, name: name) { (pcm, frames) throws(EarshotError) in
                try options.check(samples: out.count + frames * channels, bytesPerSample: 4, channels: channels, name: name)
                interleave(pcm, frames: frames, channels: channels, onto: &out) { $0 }
            }
            var audio = PCMAudio(sampleRate: rate, channels: channels, samples: .float32(out))
            audio.truncation = try options.judge(Truncation.ogg(end, found: audio.frameCount), name: name)
            return audio
        }
        var out: [Int16] = []
        out.reserveCapacity(expected)
        try decodeLoop(vf, channels: channels, rate: rate, name: name) { (pcm, frames) throws(EarshotError) in
            try options.check(samples: out.count + frames * channels, bytesPerSample: 2, channels: channels, name: name)
            interleave(pcm, frames: frames, channels: channels, onto: &out, int16)
        }
        var audio = PCMAudio(sampleRate: rate, channels: channels, samples: .int16(out))
        audio.truncation = try options.judge(Truncation.ogg(end, found: audio.frameCount), name: name)
        return audio
    }

    /// Appends `frames` frames of planar channels to `out`, interleaved, each sample converted.
    @inline(__always)
    private static func interleave<T: Numeric>(
        _ pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, frames: Int, channels: Int,
        onto out: inout [T], _ convert: (Float) -> T
    ) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: frames * channels))
        out.withUnsafeMutableBufferPointer { dst in
            for ch in 0..<channels {
                guard let src = pcm[ch] else { continue }
                for f in 0..<frames { dst[start + f * channels + ch] = convert(src[f]) }
            }
        }
    }

    /// A float sample as 16-bit, the way `ov_read` converts (×32768, rounded to nearest even, clipped).
    @inline(__always)
    static func int16(_ x: Float) -> Int16 {
        let v = (x * 32768).rounded(.toNearestOrEven)
        return v >= 32767 ? .max : v <= -32768 ? .min : Int16(v)
    }

    /// Runs `take` for every block `ov_read_float` decodes (planar channels, frame count), until
    /// the end of the stream; a hole, a format change between links or a decoding error throws.
    private static func decodeLoop(
        _ vf: UnsafeMutablePointer<OggVorbis_File>, channels: Int, rate: Int, name: String,
        _ take: (UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, Int) throws(EarshotError) -> Void
    ) throws(EarshotError) {
        var link: Int32 = 0
        while true {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            let got = ov_read_float(vf, &pcm, 4096, &link)
            if got == 0 { break }
            guard got > 0 else {
                throw .malformedFile(
                    "\(name): \(got == Int(OV_HOLE) ? "damaged Ogg page (a hole in the data)" : reason(Int32(clamping: got)))"
                )
            }
            if let info = ov_info(vf, link), Int(info.pointee.channels) != channels || info.pointee.rate != rate {
                throw .formatChanged(
                    path: name,
                    detail: "link \(link) of the chained Ogg stream has \(info.pointee.channels) channels at "
                        + "\(info.pointee.rate) Hz after \(channels) at \(rate) Hz")
            }
            guard let pcm else { throw .malformedFile("\(name): vorbisfile returned no samples") }
            try take(pcm, got)
        }
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case OV_EREAD: return "read error"
        case OV_ENOTVORBIS: return "not an Ogg Vorbis file"
        case OV_EVERSION: return "unsupported Vorbis version"
        case OV_EBADHEADER: return "bad Vorbis header"
        case OV_EFAULT: return "internal vorbisfile error"
        case OV_EBADLINK: return "damaged Ogg link"
        case OV_EINVAL: return "invalid Vorbis stream"
        default: return "vorbisfile error \(code)"
        }
    }
}
